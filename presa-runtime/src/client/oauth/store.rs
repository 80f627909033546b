//! [`TokenStore`]: where a client keeps, per resource, the authorization
//! server it signed in with, its registration there, and its tokens.

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::sync::Mutex;

use async_trait::async_trait;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::util::lock;

/// What a [`TokenStore`] may fail with.
pub type TokenStoreError = Box<dyn Error + Send + Sync>;

/// Everything a client holds for one resource. Its `Debug` shows no
/// secret; its serialized form (for a store that writes it down) holds
/// them all, so keep it as a store keeps a password.
#[derive(Clone, Serialize, Deserialize)]
pub struct SignedIn {
    /// The authorization server (its issuer) the rest belongs to.
    pub(crate) issuer: String,
    /// The client id there.
    pub(crate) client_id: String,
    /// Its secret, for a confidential client.
    #[serde(with = "secret_option", default)]
    pub(crate) client_secret: Option<SecretString>,
    /// How the client authenticates at the token endpoint.
    pub(crate) auth_method: String,
    /// The access token last issued; `None` before the first sign-in.
    #[serde(with = "secret_option", default)]
    pub(crate) access_token: Option<SecretString>,
    /// The refresh token, when one was issued.
    #[serde(with = "secret_option", default)]
    pub(crate) refresh_token: Option<SecretString>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default)]
    pub(crate) expires_at: Option<u64>,
    /// When to refresh it, ahead of its expiry.
    #[serde(default)]
    pub(crate) refresh_at: Option<u64>,
    /// The scopes last asked for.
    #[serde(default)]
    pub(crate) scopes: Vec<String>,
    /// The DPoP key the tokens are bound to (PKCS#8, base64), when the
    /// client signed in with DPoP.
    #[serde(with = "secret_option", default)]
    pub(crate) dpop_key: Option<SecretString>,
}

impl fmt::Debug for SignedIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = |secret: &Option<SecretString>| secret.as_ref().map(|_| "[redacted]");
        f.debug_struct("SignedIn")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &held(&self.client_secret))
            .field("auth_method", &self.auth_method)
            .field("access_token", &held(&self.access_token))
            .field("refresh_token", &held(&self.refresh_token))
            .field("expires_at", &self.expires_at)
            .field("refresh_at", &self.refresh_at)
            .field("scopes", &self.scopes)
            .field("dpop_key", &held(&self.dpop_key))
            .finish()
    }
}

mod secret_option {
    use super::*;

    pub fn serialize<S: Serializer>(
        secret: &Option<SecretString>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        secret.as_ref().map(|v| v.expose_secret()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SecretString>, D::Error> {
        Ok(Option::<String>::deserialize(d)?.map(SecretString::from))
    }
}

/// Keeps what a client holds for each resource (its canonical URL), so
/// that it signs in once, not per process or per connection.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `TokenStore`",
    label = "this type does not implement `TokenStore`",
    note = "use `MemoryTokenStore`, or implement `TokenStore` to keep tokens where your application keeps secrets"
)]
#[async_trait]
pub trait TokenStore: Send + Sync + 'static {
    /// What is held for `resource`, if anything.
    async fn load(&self, resource: &str) -> Result<Option<SignedIn>, TokenStoreError>;
    /// Keeps `signed_in` for `resource`, replacing what was held.
    async fn save(&self, resource: &str, signed_in: &SignedIn) -> Result<(), TokenStoreError>;
}

/// A [`TokenStore`] in memory: tokens last as long as the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    held: Mutex<HashMap<String, SignedIn>>,
}

#[async_trait]
impl TokenStore for MemoryTokenStore {
    async fn load(&self, resource: &str) -> Result<Option<SignedIn>, TokenStoreError> {
        Ok(lock(&self.held).get(resource).cloned())
    }

    async fn save(&self, resource: &str, signed_in: &SignedIn) -> Result<(), TokenStoreError> {
        lock(&self.held).insert(resource.to_owned(), signed_in.clone());
        Ok(())
    }
}

/// A [`TokenStore`] in one JSON file, for a CLI or a desktop app that
/// signs in once and stays signed in: every entry of the process's
/// resources, kept between runs.
///
/// Each save writes a new file beside the old one and renames it over,
/// so that a crash leaves the old file or the new one, never half of
/// one; on Unix the file is readable and writable by its owner only
/// (`0600`), whatever the umask. Saves within a process are serialized;
/// two processes sharing one file may lose each other's latest save (the
/// next sign-in repairs it), but never corrupt it.
#[derive(Debug)]
pub struct FileTokenStore {
    path: std::path::PathBuf,
    writing: tokio::sync::Mutex<()>,
}

impl FileTokenStore {
    /// A store in the file at `path`, created on the first save.
    pub fn new(path: impl Into<std::path::PathBuf>) -> Self {
        FileTokenStore {
            path: path.into(),
            writing: tokio::sync::Mutex::new(()),
        }
    }

    async fn read_all(&self) -> Result<HashMap<String, SignedIn>, TokenStoreError> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("{} is not a token store: {e}", self.path.display()).into()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(e) => Err(format!("{} cannot be read: {e}", self.path.display()).into()),
        }
    }

    async fn write_all(&self, entries: &HashMap<String, SignedIn>) -> Result<(), TokenStoreError> {
        use tokio::io::AsyncWriteExt;
        let bytes = serde_json::to_vec_pretty(entries)?;
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tokens".into());
        let fresh = self
            .path
            .with_file_name(format!(".{name}.{}.new", std::process::id()));
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        options.mode(0o600);
        let mut file = options.open(&fresh).await?;
        file.write_all(&bytes).await?;
        file.sync_all().await?;
        drop(file);
        tokio::fs::rename(&fresh, &self.path).await?;
        Ok(())
    }
}

#[async_trait]
impl TokenStore for FileTokenStore {
    async fn load(&self, resource: &str) -> Result<Option<SignedIn>, TokenStoreError> {
        Ok(self.read_all().await?.remove(resource))
    }

    async fn save(&self, resource: &str, signed_in: &SignedIn) -> Result<(), TokenStoreError> {
        let _writing = self.writing.lock().await;
        let mut entries = self.read_all().await?;
        entries.insert(resource.to_owned(), signed_in.clone());
        self.write_all(&entries).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed_in() -> SignedIn {
        SignedIn {
            issuer: "https://as.example".into(),
            client_id: "cid".into(),
            client_secret: Some("client-secret-value".to_owned().into()),
            auth_method: "client_secret_basic".into(),
            access_token: Some("access-token-value".to_owned().into()),
            refresh_token: Some("refresh-token-value".to_owned().into()),
            expires_at: Some(1),
            refresh_at: None,
            scopes: vec!["a".into()],
            dpop_key: None,
        }
    }

    #[test]
    fn debug_output_holds_no_secret() {
        let shown = format!("{:?}", signed_in());
        for secret in [
            "client-secret-value",
            "access-token-value",
            "refresh-token-value",
        ] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(
            shown.contains("[redacted]") && shown.contains("cid"),
            "{shown}"
        );
    }

    #[test]
    fn the_serialized_form_keeps_every_secret() {
        let text = serde_json::to_string(&signed_in()).unwrap();
        let back: SignedIn = serde_json::from_str(&text).unwrap();
        assert_eq!(
            back.refresh_token.unwrap().expose_secret(),
            "refresh-token-value"
        );
        assert_eq!(
            back.client_secret.unwrap().expose_secret(),
            "client-secret-value"
        );
    }

    #[tokio::test]
    async fn the_memory_store_keeps_one_entry_per_resource() {
        let store = MemoryTokenStore::default();
        assert!(store.load("r").await.unwrap().is_none());
        store.save("r", &signed_in()).await.unwrap();
        let mut other = signed_in();
        other.client_id = "other".into();
        store.save("s", &other).await.unwrap();
        assert_eq!(store.load("r").await.unwrap().unwrap().client_id, "cid");
        assert_eq!(store.load("s").await.unwrap().unwrap().client_id, "other");
    }

    #[tokio::test]
    async fn the_file_store_keeps_entries_across_instances_in_an_owner_only_file() {
        let dir = std::env::temp_dir().join(format!("presa-token-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokens.json");
        let _ = std::fs::remove_file(&path);
        let store = FileTokenStore::new(&path);
        assert!(store.load("r").await.unwrap().is_none());
        store.save("r", &signed_in()).await.unwrap();
        let mut other = signed_in();
        other.client_id = "other".into();
        store.save("s", &other).await.unwrap();
        let reopened = FileTokenStore::new(&path);
        let back = reopened.load("r").await.unwrap().unwrap();
        assert_eq!(
            back.refresh_token.unwrap().expose_secret(),
            "refresh-token-value"
        );
        assert_eq!(
            reopened.load("s").await.unwrap().unwrap().client_id,
            "other"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Nothing is left beside it.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::write(&path, b"not json").unwrap();
        let error = reopened.load("r").await.unwrap_err().to_string();
        assert!(error.contains("is not a token store"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
