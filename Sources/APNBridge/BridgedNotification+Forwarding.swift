@_spi(APNBridge) package import APN
@_spi(APNBridge) import APNCore
import Glibc

extension BridgedNotification {
    /// The request the bridge sends upstream for it: the payload bytes as the client sent
    /// them; `apns-expiration` its expiry (0 when it had none, and 0 stays 0: deliver once,
    /// never store); `apns-topic` the tenant's; `apns-push-type` `pushType` when the tenant
    /// sets one (an MDM tenant's `mdm`, say), else derived from the payload — `background`
    /// when its `aps` holds `content-available` and nothing else, `alert` otherwise;
    /// `apns-priority` 5 for a background push (Apple refuses 10 for one), else its
    /// priority, 10 when it had none.
    package func forwarded(topic: String, pushType override: PushType?) -> ForwardedNotification {
        let parts = forwardedParts(topic: topic, pushType: override)
        return ForwardedNotification(
            device: parts.device, payload: parts.payload, pushType: parts.pushType, priority: parts.priority,
            expiry: parts.expiry, topic: parts.topic)
    }

    /// ``forwarded(topic:pushType:)`` as its parts, for ``Provider/forward(count:_:completion:)``.
    package func forwardedParts(topic: String, pushType override: PushType?) -> ForwardedParts {
        let pushType = override ?? (Self.isBackgroundOnly(payload) ? .background : .alert)
        let priority = pushType == .background ? 5 : Int(priority ?? 10)
        return (Device(unvalidated: token), payload, pushType, priority, expiry ?? 0, topic)
    }

    private static let contentAvailable = Array("content-available".utf8)
    /// Where `contentAvailable`'s one `-` is: the search looks for that byte, rare in a
    /// payload's text, not for its `c`, which most payloads hold several of.
    private static let contentAvailableDash = 7

    /// Whether the payload's `aps` dictionary holds `content-available` alone. Most payloads
    /// do not mention it, and those are answered without parsing: the byte search is the
    /// cheap part of a notification's cost, a JSON tree is not.
    static func isBackgroundOnly(_ payload: [UInt8]) -> Bool {
        guard contains(payload, contentAvailable, pivot: contentAvailableDash),
            let object = try? JSONParser().parseObject(bytes: payload),
            case .object(let aps)? = object["aps"]
        else { return false }
        return aps.keys == ["content-available"]
    }

    /// Whether `needle` occurs in `bytes`: `memchr` to each place its byte at `pivot` is (a
    /// byte chosen for being rare in payloads), then `memcmp` (glibc's, a word at a time; a
    /// byte loop cost some 700 instructions a notification).
    private static func contains(_ bytes: [UInt8], _ needle: [UInt8], pivot: Int) -> Bool {
        guard pivot < needle.count, bytes.count >= needle.count else { return false }
        let key = Int32(needle[pivot])
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in
                guard let base = haystack.baseAddress, let target = needle.baseAddress else { return false }
                // A candidate starting at `start` has its pivot byte at `start + pivot`.
                var start = 0
                let last = haystack.count - needle.count
                while start <= last {
                    guard let found = memchr(base + start + pivot, key, last - start + 1) else { return false }
                    let candidate = base.distance(to: UnsafeRawPointer(found)) - pivot
                    if memcmp(base + candidate, target, needle.count) == 0 { return true }
                    start = candidate + 1
                }
                return false
            }
        }
    }
}
