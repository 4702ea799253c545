import APN

/// How the tests read JSON text: the library's own strict ``JSONParser``, without a size
/// limit (golden fixtures hold long lines). It proves the library's output is valid JSON
/// and reads it back into a ``JSONValue`` whose objects keep the document's key order.
enum TestJSONParser {
    static func parse(_ text: String) throws -> JSONValue {
        try JSONParser(maximumSize: .max).parse(text)
    }
}
