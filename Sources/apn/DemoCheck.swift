import APN
import APNWire
import APNMockGateway

/// `apn demo`'s verdict: every outcome against the mock gateway's record of what it
/// accepted. Accepted ⇔ recorded once (once or twice when possibly duplicated, a resend
/// after a silent close); rejected or failed ⇔ not recorded; an unknown fate is explained
/// by whether the gateway recorded it.
struct DemoCheck {
    /// Disagreements; the check holds when there are none.
    private(set) var problems: [String] = []
    /// One line per unknown fate: its reason and what the gateway did with it.
    private(set) var explanations: [String] = []
    /// How many notifications the gateway recorded twice.
    private(set) var duplicatesRecorded = 0

    var holds: Bool { problems.isEmpty }

    init(plan: DemoPlan, outcomes: [NotificationOutcome?], records: [MockGateway.Record]) {
        var recorded: [[UInt8]: Int] = [:]
        for record in records {
            recorded[record.token, default: 0] += 1
        }
        let pushed = Set(plan.tokens)
        for token in recorded.keys where !pushed.contains(token) {
            problems.append("the gateway recorded token \(hexString(token)), which was never pushed")
        }
        for (index, token) in plan.tokens.enumerated() {
            let times = recorded[token] ?? 0
            if times == 2 { duplicatesRecorded += 1 }
            let name = "notification \(index + 1) (token \(hexString(token).prefix(16))…)"
            guard let outcome = outcomes[index] else {
                problems.append("\(name) has no outcome")
                continue
            }
            switch outcome {
            case .accepted(let acceptance):
                let allowed = acceptance.possiblyDuplicated ? 1...2 : 1...1
                if !allowed.contains(times) {
                    problems.append("\(name) is \(outcome) but the gateway recorded it \(times) times")
                }
            case .rejected, .failed:
                if times != 0 {
                    problems.append("\(name) is \(outcome) but the gateway recorded it \(times) times")
                }
                if index != plan.rejectedIndex {
                    problems.append("\(name) is \(outcome); only notification \(plan.rejectedIndex + 1) should be refused")
                }
            case .unknownFate(let reason):
                if times > 1 {
                    problems.append("\(name) is \(outcome) but the gateway recorded it \(times) times")
                } else {
                    explanations.append(
                        "\(name): \(reason) — the gateway had "
                            + (times == 1 ? "accepted it before the close" : "not processed it"))
                }
            }
        }
        if case .rejected(.invalidToken)? = outcomes[plan.rejectedIndex] {
        } else {
            problems.append(
                "notification \(plan.rejectedIndex + 1) should be rejected with status 8, got "
                    + (outcomes[plan.rejectedIndex].map { "\($0)" } ?? "no outcome"))
        }
    }
}
