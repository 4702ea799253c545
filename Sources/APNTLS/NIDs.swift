internal import COpenSSL

/// OpenSSL's numeric identifiers for the X.509 v3 extensions APNTLS writes.
enum NIDs {
    static let basicConstraints = NID_basic_constraints
    static let keyUsage = NID_key_usage
    static let extendedKeyUsage = NID_ext_key_usage
    static let subjectKeyIdentifier = NID_subject_key_identifier
    static let authorityKeyIdentifier = NID_authority_key_identifier
    static let subjectAltName = NID_subject_alt_name
}
