//! The methods of the Skills extension (SEP-2640, "Listing Skills",
//! "Getting a Skill", "Reading Directories" and "Error Handling"), each
//! answered from the library in memory.
//!
//! - `skills/list` pages through every entry, sorted by URI, with the
//!   server's page size; an entry is never split across pages.
//! - `skills/get` returns one entry, with no cursor; a URI that names no
//!   skill is `-32602` `"No skill is served at <uri>"`.
//! - `resources/directory/read` pages through a folder's direct children:
//!   files with their listing, subfolders as `inode/directory`. A file's
//!   URI is `-32602` `"<uri> is not a directory resource"`, and a URI the
//!   server does not serve is `-32602` too.
//!
//! None needs the request to declare the extension: a client learns of
//! it from `server/discover`. `skills/list` and `skills/get` carry the
//! library's `ttlMs` and `cacheScope: public`.

use std::future::Future;

use serde_json::Value;

use super::cursor::page;
use super::library::SkillLibrary;
use crate::server::extension::{ExtensionMethod, MethodCall};
use crate::server::request::reply::{invalid_params, to_value};
use crate::wire::{
    CacheScope, ErrorObject, GetSkillParams, GetSkillResult, ListSkillsResult, MethodSpec,
    PaginatedParams, RESOURCES_DIRECTORY_READ, ReadDirectoryParams, ReadDirectoryResult,
    ResultType, SKILLS_GET, SKILLS_LIST, SkillsPage,
};

/// The three methods, served from `library`.
pub(super) fn skill_methods(library: &SkillLibrary) -> Vec<ExtensionMethod> {
    vec![
        method(SKILLS_LIST, library, list),
        method(SKILLS_GET, library, get),
        method(RESOURCES_DIRECTORY_READ, library, read_directory),
    ]
}

/// Method `spec`, running `operation` on `library`.
fn method<F, Fut>(spec: MethodSpec, library: &SkillLibrary, operation: F) -> ExtensionMethod
where
    F: Fn(SkillLibrary, MethodCall) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
{
    let library = library.clone();
    ExtensionMethod::new(spec.name, move |call| operation(library.clone(), call))
}

/// `skills/list`: one page of entries.
async fn list(library: SkillLibrary, call: MethodCall) -> Result<Value, ErrorObject> {
    let PaginatedParams { cursor, .. } = call.params()?;
    let (skills, next_cursor) = page(library.skills(), cursor.as_deref(), call.page_size())?;
    Ok(to_value(ListSkillsResult {
        result_type: ResultType::Complete,
        items: SkillsPage {
            skills: skills.to_vec(),
        },
        next_cursor,
        ttl_ms: library.ttl.as_millis() as u64,
        cache_scope: CacheScope::Public,
        meta: Some(call.result_meta().clone()),
    }))
}

/// `skills/get`: the entry of one skill.
async fn get(library: SkillLibrary, call: MethodCall) -> Result<Value, ErrorObject> {
    let GetSkillParams { uri, .. } = call.params()?;
    let skill = library
        .skill(&uri)
        .ok_or_else(|| invalid_params(format!("No skill is served at {uri}")))?;
    Ok(to_value(GetSkillResult {
        result_type: ResultType::Complete,
        skill: skill.clone(),
        ttl_ms: library.ttl.as_millis() as u64,
        cache_scope: CacheScope::Public,
        meta: Some(call.result_meta().clone()),
    }))
}

/// `resources/directory/read`: one page of a folder's direct children.
async fn read_directory(library: SkillLibrary, call: MethodCall) -> Result<Value, ErrorObject> {
    let ReadDirectoryParams { uri, cursor, .. } = call.params()?;
    let Some(children) = library.index.directories.get(&uri) else {
        return Err(invalid_params(if library.index.files.contains_key(&uri) {
            format!("{uri} is not a directory resource")
        } else {
            format!("No directory resource is served at {uri}")
        }));
    };
    let (resources, next_cursor) = page(children, cursor.as_deref(), call.page_size())?;
    Ok(to_value(ReadDirectoryResult {
        result_type: ResultType::Complete,
        resources: resources.to_vec(),
        next_cursor,
        meta: Some(call.result_meta().clone()),
    }))
}
