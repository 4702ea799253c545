/// Turns what the peer's TCP acknowledged — counted in bytes the socket carried, which are
/// TLS ciphertext — into bytes of what the gateway session wrote (plaintext): after each
/// write the driver notes both totals; the plaintext up to a note is acknowledged once the
/// ciphertext up to it is. Conservative by at most one write (one TLS record, as writes
/// are partial): a record half acknowledged cannot have been decrypted, let alone read.
///
/// Pure and per connection: the driver resets it for each new socket.
struct AcknowledgementMap: ~Copyable {
    private var notes = RingBuffer<AcknowledgementNote>(minimumCapacity: 64)
    /// Plaintext bytes written on this connection.
    private(set) var plaintextWritten: Int64 = 0
    /// Of those, the bytes known to be acknowledged.
    private(set) var plaintextAcknowledged: Int64 = 0

    /// Notes kept before the driver should ask the socket again, so that they stay few
    /// however long no timer asks (a write of 16 KiB per note: 16 MiB of notes' worth).
    static let notesBeforeRefresh = 1024

    /// Whether enough notes piled up that the driver should report an acknowledgement.
    var wantsRefresh: Bool { notes.count >= Self.notesBeforeRefresh }

    /// A write of `count` plaintext bytes, after which the socket had carried
    /// `ciphertextTotal` bytes in all (handshake included).
    mutating func wrote(_ count: Int, ciphertextTotal: UInt64) {
        plaintextWritten += Int64(count)
        notes.append(AcknowledgementNote(plaintext: plaintextWritten, ciphertext: ciphertextTotal))
    }

    /// The peer acknowledged the first `ciphertext` bytes the socket carried; returns the
    /// plaintext bytes that are now known to be acknowledged.
    mutating func acknowledge(ciphertext: UInt64) -> Int64 {
        while let first = notes.first, first.ciphertext <= ciphertext {
            plaintextAcknowledged = first.plaintext
            notes.removeFirst()
        }
        return plaintextAcknowledged
    }

    /// Forgets everything, for a new connection.
    mutating func reset() {
        notes.removeAll()
        plaintextWritten = 0
        plaintextAcknowledged = 0
    }
}

/// One write's totals: plaintext written so far, and ciphertext the socket carried so far.
/// (Not nested in the map: a private type nested in a noncopyable one crashes the 6.3
/// compiler.)
struct AcknowledgementNote {
    var plaintext: Int64
    var ciphertext: UInt64
}
