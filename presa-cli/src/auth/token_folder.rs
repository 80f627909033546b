//! The folder where `presa` keeps what its OAuth sign-ins got, one file
//! per server: `tokens/` in `presa/` under the user's config directory,
//! or in `PRESA_CONFIG_DIR` when it is set.
//!
//! The files hold refresh tokens and client secrets. The rules, in order:
//!
//! 1. the folder is private. On Unix it is created `0700`, whatever the
//!    umask; a folder that exists with more open permissions is made
//!    `0700`, and one that cannot be (another user's) is refused with a
//!    message that says how to fix it. Each file in it is `0600` (presa's
//!    `FileTokenStore` writes it so). Elsewhere the config directory's own
//!    access rules apply;
//! 2. a server's file is named by the SHA-256 digest of its URL, in hex,
//!    after the URL is read as a browser reads it (`HTTPS://Host/mcp` is
//!    `https://host/mcp`). So two servers never share a file, whatever
//!    their URLs hold;
//! 3. files named the way earlier versions of `presa` named them (the URL
//!    with each character but letters and digits made `_`, a name that
//!    two servers could share) are not read: their servers ask the person
//!    to sign in again. `presa logout` deletes such a file too, so that
//!    no token stays behind.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::exit::Failure;
use crate::hosts::{PRESA_CONFIG_DIR, presa_config_folder};
use crate::output::shown;

/// The folder of sign-ins.
pub struct TokenFolder {
    path: PathBuf,
}

impl TokenFolder {
    /// The user's folder: under `PRESA_CONFIG_DIR`, or else under the
    /// config directory.
    pub fn of_user() -> Result<Self, Failure> {
        let config = presa_config_folder().ok_or_else(|| {
            Failure::protocol(format!(
                "this system has no config directory for tokens: set {PRESA_CONFIG_DIR} \
                     to a folder of your own"
            ))
        })?;
        Ok(TokenFolder::at(config.join("tokens")))
    }

    /// The folder at `path`.
    pub fn at(path: PathBuf) -> Self {
        TokenFolder { path }
    }

    /// The file that keeps the sign-in to `url` (rule 2).
    pub fn file_for(&self, url: &str) -> PathBuf {
        let read = url::Url::parse(url).map_or_else(|_| url.to_owned(), String::from);
        let digest = Sha256::digest(read.as_bytes());
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        self.path.join(format!("{hex}.json"))
    }

    /// The file an earlier `presa` kept the sign-in to `url` in (rule 3).
    fn earlier_file_for(&self, url: &str) -> PathBuf {
        let name: String = url
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        self.path.join(format!("{name}.json"))
    }

    /// Creates the folder, private, or makes it private (rule 1).
    pub fn make_private(&self) -> Result<(), Failure> {
        let shown = shown::line(&self.path.display().to_string()).to_string();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&self.path).map_err(|e| {
            Failure::protocol(format!("cannot create the token folder {shown}: {e}"))
        })?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let metadata = std::fs::metadata(&self.path).map_err(|e| {
                Failure::protocol(format!("cannot read the token folder {shown}: {e}"))
            })?;
            let mode = metadata.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                let private = std::fs::Permissions::from_mode(0o700);
                std::fs::set_permissions(&self.path, private).map_err(|e| {
                    Failure::protocol(format!(
                        "the token folder {shown} is open to other users (mode {mode:o}), \
                         and presa cannot make it private ({e}): run `chmod 700` on it, \
                         or set {PRESA_CONFIG_DIR} to a folder of your own"
                    ))
                })?;
            }
        }
        Ok(())
    }

    /// Deletes what the sign-in to `url` kept, in the file named either
    /// way (rule 3); whether there was anything to delete.
    pub fn forget(&self, url: &str) -> Result<bool, Failure> {
        let mut forgot = false;
        for file in [self.file_for(url), self.earlier_file_for(url)] {
            forgot |= remove(&file)?;
        }
        Ok(forgot)
    }
}

/// Deletes `file`; whether it was there.
fn remove(file: &Path) -> Result<bool, Failure> {
    match std::fs::remove_file(file) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Failure::protocol(format!(
            "cannot delete {}: {e}",
            shown::line(&file.display().to_string())
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder of `name` for one test, under the system's temporary
    /// folder; removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let path = std::env::temp_dir()
                .join(format!("presa-cli-tokens-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            Scratch(path)
        }

        fn folder(&self) -> TokenFolder {
            TokenFolder::at(self.0.join("presa").join("tokens"))
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn name(path: &Path) -> String {
        path.file_name().unwrap().to_string_lossy().into_owned()
    }

    #[test]
    fn each_server_has_a_file_of_its_own() {
        let folder = TokenFolder::at(PathBuf::from("tokens"));
        let dashed = folder.file_for("https://mcp-corp.com/mcp");
        let dotted = folder.file_for("https://mcp.corp.com/mcp");
        assert_ne!(dashed, dotted);
        assert_eq!(
            folder.earlier_file_for("https://mcp-corp.com/mcp"),
            folder.earlier_file_for("https://mcp.corp.com/mcp"),
            "the names an earlier presa gave them collide"
        );
        let file = name(&dashed);
        assert_eq!(file.len(), 64 + ".json".len(), "{file}");
        assert!(file[..64].bytes().all(|b| b.is_ascii_hexdigit()), "{file}");
    }

    #[test]
    fn one_server_has_one_file_however_its_url_is_written() {
        let folder = TokenFolder::at(PathBuf::from("tokens"));
        assert_eq!(
            folder.file_for("HTTPS://MCP.Example.com:443/mcp"),
            folder.file_for("https://mcp.example.com/mcp")
        );
        assert_ne!(
            folder.file_for("https://mcp.example.com/mcp"),
            folder.file_for("https://mcp.example.com/other")
        );
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn a_new_folder_is_private() {
        let scratch = Scratch::new("new");
        let folder = scratch.folder();
        folder.make_private().unwrap();
        assert_eq!(mode(&folder.path), 0o700);
        assert_eq!(mode(folder.path.parent().unwrap()), 0o700, "presa/ too");
    }

    #[cfg(unix)]
    #[test]
    fn an_open_folder_is_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = Scratch::new("open");
        let folder = scratch.folder();
        std::fs::create_dir_all(&folder.path).unwrap();
        let open = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(&folder.path, open).unwrap();
        folder.make_private().unwrap();
        assert_eq!(mode(&folder.path), 0o700);
    }

    #[test]
    fn a_folder_that_cannot_be_made_is_an_error_that_names_it() {
        let scratch = Scratch::new("blocked");
        std::fs::create_dir_all(&scratch.0).unwrap();
        std::fs::write(scratch.0.join("presa"), "a file, not a folder").unwrap();
        let error = scratch.folder().make_private().unwrap_err();
        assert!(
            error.message.starts_with("cannot create the token folder "),
            "{}",
            error.message
        );
    }

    #[test]
    fn forgetting_deletes_the_file_named_either_way() {
        let scratch = Scratch::new("forget");
        let folder = scratch.folder();
        folder.make_private().unwrap();
        let url = "https://mcp.example.com/mcp";
        assert!(!folder.forget(url).unwrap(), "nothing to forget yet");
        for file in [folder.file_for(url), folder.earlier_file_for(url)] {
            std::fs::write(&file, "{}").unwrap();
            assert!(folder.forget(url).unwrap());
            assert!(!file.exists());
        }
        let other = folder.file_for("https://mcp.example.com/other");
        std::fs::write(&other, "{}").unwrap();
        assert!(!folder.forget(url).unwrap());
        assert!(other.exists(), "another server's file stays");
    }
}
