internal import Glibc

/// `strerror` for an `errno` value, for error descriptions.
func systemErrorMessage(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "unknown error" }
    return String(cString: text)
}

/// The calling thread's current `errno`.
var currentErrno: Int32 { Glibc.errno }
