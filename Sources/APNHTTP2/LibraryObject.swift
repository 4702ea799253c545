internal import CNGHTTP2

/// Owns one short-lived nghttp2 object (the callback table, the options), freed in deinit
/// with the function given for it.
final class LibraryObject {
    let pointer: OpaquePointer
    private let delete: (OpaquePointer) -> Void

    /// An object made by `create` (an `nghttp2_…_new`), freed by `delete`.
    init(_ what: String, create: (inout OpaquePointer?) -> Int32, delete: @escaping (OpaquePointer) -> Void) throws(HTTP2Error) {
        pointer = try Self.create(what, create)
        self.delete = delete
    }

    deinit {
        delete(pointer)
    }

    /// Calls an nghttp2 constructor (`nghttp2_…_new(&object, …)`) through `create` and
    /// returns the new object, or throws a library error naming `what` was being created.
    static func create(_ what: String, _ create: (inout OpaquePointer?) -> Int32) throws(HTTP2Error) -> OpaquePointer {
        var created: OpaquePointer?
        let result = create(&created)
        guard result == 0, let created else {
            throw HTTP2Error(.library, "creating \(what)", libraryCode: result)
        }
        return created
    }
}
