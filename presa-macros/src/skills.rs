//! `embed_skills!`: the files of a skills folder, embedded in the binary
//! at compile time.
//!
//! The macro walks the folder when the crate is compiled and expands to
//! `SkillLibrary::from_embedded` over one `include_bytes!` per file, so
//! cargo rebuilds the crate when one of those files changes. (A file added
//! to the folder is seen at the next build of the crate: stable Rust lets
//! a macro track files, not folders.) It walks by the rules of
//! `SkillLibrary::from_dir`, so that a folder embeds exactly as it loads:
//!
//! 1. a name that starts with `.` is skipped, file or folder;
//! 2. a name that is not UTF-8 is an error;
//! 3. a symbolic link is followed when it leads inside the folder, and is
//!    an error when it leads outside it or to a folder that contains it;
//! 4. an entry that is neither a file nor a folder is skipped.
//!
//! Everything else (frontmatter, names, limits) is checked when the
//! expansion runs, by the runtime's loader, so the rules live in one
//! place.

use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

/// Expands `embed_skills!("folder")`.
pub fn expand(input: TokenStream) -> TokenStream {
    let folder: LitStr = match syn::parse2(input) {
        Ok(folder) => folder,
        Err(error) => {
            return syn::Error::new(
                error.span(),
                "embed_skills! takes one string: the skills folder, relative to the crate's \
                 Cargo.toml, as in `embed_skills!(\"skills\")`",
            )
            .to_compile_error();
        }
    };
    match files(&folder.value()) {
        Ok(files) => {
            let entries = files.iter().map(|(path, location)| {
                quote! { (#path, ::core::include_bytes!(#location) as &'static [u8]) }
            });
            quote! {{
                static FILES: &[(&str, &[u8])] = &[#(#entries),*];
                ::presa::server::skills::SkillLibrary::from_embedded(FILES)
            }}
        }
        Err(message) => syn::Error::new(folder.span(), message).to_compile_error(),
    }
}

/// Every file below `folder` (relative to the crate being compiled), by
/// its `/`-separated path inside it and its absolute location.
fn files(folder: &str) -> Result<Vec<(String, String)>, String> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .map_err(|_| "embed_skills! needs CARGO_MANIFEST_DIR; build with cargo".to_owned())?;
    let root = Path::new(&manifest).join(folder);
    let canonical = fs::canonicalize(&root)
        .map_err(|e| format!("cannot read skills folder `{}`: {e}", root.display()))?;
    let mut walk = Walk {
        root: &canonical,
        ancestors: vec![canonical.clone()],
        found: Vec::new(),
    };
    walk.folder(&root, "")?;
    Ok(walk.found)
}

/// One walk: the folders it is inside, and what it found.
struct Walk<'a> {
    root: &'a Path,
    ancestors: Vec<PathBuf>,
    found: Vec<(String, String)>,
}

impl Walk<'_> {
    fn folder(&mut self, folder: &Path, prefix: &str) -> Result<(), String> {
        let cannot =
            |path: &Path, e: std::io::Error| format!("cannot read `{}`: {e}", path.display());
        let mut entries = fs::read_dir(folder)
            .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
            .map_err(|e| cannot(folder, e))?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let location = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(format!(
                    "`{}` has a name that is not UTF-8, so it cannot be part of a skill:// URI; \
                     rename it",
                    location.display()
                ));
            };
            if name.starts_with('.') {
                continue;
            }
            let path = match prefix {
                "" => name,
                _ => format!("{prefix}/{name}"),
            };
            let canonical = fs::canonicalize(&location).map_err(|e| cannot(&location, e))?;
            if !canonical.starts_with(self.root) {
                return Err(format!(
                    "`{}` is a symbolic link to `{}`, outside the skills folder; copy the file \
                     into the folder, or point the link at a file inside it",
                    location.display(),
                    canonical.display()
                ));
            }
            let metadata = fs::metadata(&canonical).map_err(|e| cannot(&location, e))?;
            if metadata.is_dir() {
                if self.ancestors.contains(&canonical) {
                    return Err(format!(
                        "`{}` is a symbolic link to a folder that contains it; remove the link",
                        location.display()
                    ));
                }
                self.ancestors.push(canonical);
                self.folder(&location, &path)?;
                self.ancestors.pop();
            } else if metadata.is_file() {
                let Some(absolute) = canonical.to_str().map(str::to_owned) else {
                    return Err(format!(
                        "`{}` is not a UTF-8 path, which include_bytes! needs; move the skills \
                         folder",
                        canonical.display()
                    ));
                };
                self.found.push((path, absolute));
            }
        }
        Ok(())
    }
}
