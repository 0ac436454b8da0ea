//! The one TLS crypto provider of the process.
//!
//! reqwest (OIDC discovery, the assistant's model API, SMS), lettre (SMTP) and the S3 client all
//! speak TLS through rustls. They are built without a provider of their own so that only ring is
//! compiled (aws-lc-rs, the rustls default, builds a C library as large as the rest of the server
//! put together); ring is installed here as the process default before any client is built.

/// Makes ring the process's rustls provider. Idempotent: every entry point that builds a TLS
/// client calls it (the binary's `main`, the application's start, the S3 store, tests' clients).
pub fn install_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may win the race between the check and the install: either way the
        // process ends up with ring.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
