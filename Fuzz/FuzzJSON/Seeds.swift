import APN
import APNTLS
import Foundation
import FuzzSupport

/// Seeds: the first golden payloads (Tests/APNTests/Fixtures/golden) as given and as
/// compiled, JSON edge cases, a signed provider token and base64url texts.
func jsonSeeds() throws -> [(name: String, bytes: [UInt8])] {
    let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/APNTests/Fixtures/golden/node-apn-1.7.8-payloads.jsonl")
    let lines = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").prefix(12)
    var seeds: [(String, JSONReader, [UInt8])] = []
    for (index, line) in lines.enumerated() {
        let record = try JSONParser().parseObject(String(line))
        seeds.append(("golden-line-\(index)", .parser, Array(line.utf8)))
        if case .string(let json)? = record["json"] {
            seeds.append(("golden-json-\(index)", .notification, Array(json.utf8)))
        }
    }
    let edges = [
        #"[1e400,-0,0.1,1E-7,123456789012345678901234567890,-1.5e+300]"#,
        #"{"s":"\ud83d\ude00 \u0000 \"\\\/\b\f\n\r\t","t":true,"f":false,"n":null}"#,
        #"{"aps":{"alert":{"body":"é","loc-args":["a"]},"badge":1,"sound":"x"},"acme":[[[[]]]]}"#,
        " \t\n[\"\\ud800\", {}]\r\n",
    ]
    for (index, text) in edges.enumerated() {
        seeds.append(("edge-\(index)", .parser, Array(text.utf8)))
        seeds.append(("edge-payload-\(index)", .notification, Array(text.utf8)))
    }
    let key = try ES256SigningKey.generate()
    let token = try JSONWebToken.sign(ProviderTokenClaims(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: 1_437_179_036), with: key)
    seeds.append(("provider-token", .webToken, Array(token.utf8)))
    seeds.append(("base64url-header", .base64URL, Array("eyJhbGciOiJFUzI1NiJ9".utf8)))
    seeds.append(("base64url-all", .base64URL, Array(Base64URL.encode(0...255).utf8)))
    return seeds.map { name, reader, bytes in (name, [reader.rawValue] + bytes) }
}
