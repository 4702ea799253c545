/// Copied records that format themselves as the record file's lines.
protocol RecordFileLines {
    /// No records.
    init()
    /// Appends one line per record to `lines`.
    func appendLines(to lines: inout RecordLineBuffer)
}
