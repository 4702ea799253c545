import APNBridge
import Testing

/// One row of an answer table: notifications 0 ..< `received` forwarded on a fresh
/// connection, then answers one at a time, each with the actions it must cause: so a
/// row says not only what is written but after which answer.
struct AnswerCase: Sendable, CustomTestStringConvertible {
    struct Step: Sendable {
        /// The ordinal answered, or nil: the client closes.
        let ordinal: Int?
        let answer: BridgeAnswer
        let expected: [String]
    }

    let name: String
    let received: Int
    let steps: [Step]

    var testDescription: String { name }

    init(_ name: String, received: Int = 10, _ steps: [Step]) {
        self.name = name
        self.received = received
        self.steps = steps
    }

    /// Plays the row, checking every step's actions.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0..<received)
        #expect(harness.actions(connection) == forwards(0...received - 1), sourceLocation: sourceLocation)
        for step in steps {
            guard let ordinal = step.ordinal else {
                harness.clientClosed(connection)
                #expect(harness.actions(connection) == step.expected, "after the client closed", sourceLocation: sourceLocation)
                continue
            }
            harness.answer(connection, ordinal, step.answer)
            #expect(
                harness.actions(connection) == step.expected,
                "after answering \(ordinal) \(BridgeHarness.name(of: step.answer))", sourceLocation: sourceLocation)
        }
    }
}

/// A step of an ``AnswerCase``: answering `ordinal` with `answer` causes `expected`.
func step(_ ordinal: Int, _ answer: BridgeAnswer, _ expected: [String] = []) -> AnswerCase.Step {
    AnswerCase.Step(ordinal: ordinal, answer: answer, expected: expected)
}

/// A step of an ``AnswerCase``: the client closes (after reading its error response), and
/// that causes `expected`.
func clientCloses(_ expected: [String] = []) -> AnswerCase.Step {
    AnswerCase.Step(ordinal: nil, answer: .accepted, expected: expected)
}

/// `remember(o,pending)` for each ordinal.
func pending(_ ordinals: ClosedRange<Int>) -> [String] {
    ordinals.map { "remember(\($0),pending)" }
}
