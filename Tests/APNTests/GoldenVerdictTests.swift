import APN
import Testing
import APNTestSupport
import APNTestTraits

/// The golden test's own machinery, on cases generated with node-apn 1.7.8 under Node for
/// the situations the bundled file has few or none of.
@Suite("Golden payloads: the replay's verdicts", .threadPerTest)
struct GoldenVerdictTests {
    enum Kind: Sendable {
        case passed, deliberate, javaScriptOnly
    }

    /// Each line made by node-apn 1.7.8 itself, with the verdict the replay must reach.
    @Test("node-apn's payload mutation is recognised, and only it", arguments: [
        (#"{"id":1,"payload":null,"ops":[["set","sound","x"],["trim",2048],["set","sound",""]],"json":"{\"aps\":{\"sound\":\"x\"}}","length":21,"trims":[0]}"#, Kind.deliberate),
        (#"{"id":2,"payload":null,"ops":[["set","contentAvailable",true],["trim",2048],["set","contentAvailable",false]],"json":"{\"aps\":{\"content-available\":1}}","length":31,"trims":[0]}"#, Kind.deliberate),
        (#"{"id":3,"payload":null,"ops":[["set","category","c"],["trim",2048],["set","contentAvailable",1]],"json":"{\"aps\":{\"category\":\"c\",\"content-available\":1}}","length":46,"trims":[0]}"#, Kind.deliberate),
        (#"{"id":4,"payload":null,"ops":[["set","alert","a"],["trim",2048],["set","mdm","m"]],"json":"{\"aps\":{\"alert\":\"a\"},\"mdm\":\"m\"}","length":31,"trims":[0]}"#, Kind.deliberate),
        (#"{"id":5,"payload":null,"ops":[["set","mdm","m"],["trim",2048],["call","setMDM",null],["set","badge",1]],"json":"{\"mdm\":\"m\",\"aps\":{\"badge\":1}}","length":29,"trims":[0]}"#, Kind.deliberate),
        (#"{"id":6,"payload":{"aps":{"sound":"p"}},"ops":[["set","sound","x"],["trim",2048],["set","sound",""]],"json":"{\"aps\":{\"sound\":\"x\"}}","length":21,"trims":[0]}"#, Kind.deliberate),
        (#"{"id":7,"payload":null,"ops":[["set","alert","a"],["trim",2048],["set","badge",2],["set","contentAvailable",true],["set","mutableContent",true]],"json":"{\"aps\":{\"badge\":2,\"alert\":\"a\",\"content-available\":1,\"mutable-content\":1}}","length":73,"trims":[0]}"#, Kind.passed),
        (#"{"id":8,"payload":null,"ops":[["set","sound",""],["trim",2048],["set","sound","y"],["set","badge",0]],"json":"{\"aps\":{\"badge\":0,\"sound\":\"y\"}}","length":31,"trims":[0]}"#, Kind.passed),
        (#"{"id":9,"payload":null,"ops":[["set","badge","3"]],"json":"{}","length":2,"trims":[]}"#, Kind.javaScriptOnly),
        (#"{"id":10,"payload":{"aps":null,"b":1},"ops":[["set","badge",1]],"json":"{\"aps\":{\"badge\":1},\"b\":1}","length":25,"trims":[]}"#, Kind.passed),
    ])
    func verdict(_ line: String, _ kind: Kind) throws {
        let golden = try GoldenCase(line: line, number: 1)
        let verdict = GoldenVerdict(golden)
        switch (verdict, kind) {
        case (.passed, .passed), (.deliberate, .deliberate), (.javaScriptOnly, .javaScriptOnly):
            break
        default:
            Issue.record("case \(golden.id): \(verdict), expected \(kind)")
        }
    }

    @Test("a line that is not a case names its line and what is wrong")
    func formatError() {
        #expect(throws: GoldenCase.FormatError.self) { try GoldenCase(line: "[]", number: 7) }
        do {
            _ = try GoldenCase(line: #"{"id":1,"payload":null,"ops":[["trim",10]],"json":"{}","length":2,"trims":[]}"#, number: 7)
            Issue.record("accepted a trim without a result")
        } catch {
            #expect(error.description == "line 7: 1 trim operations but 0 results")
        }
    }
}
