//! The cursors of the Skills lists: `skills/list` and
//! `resources/directory/read` page through lists that never change while
//! the server runs, so a cursor is the position to continue from. It is
//! opaque to a client, like the core's; one the server never issued is
//! `-32602`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::server::request::reply::invalid_params;
use crate::wire::ErrorObject;

/// What a cursor says before it is encoded.
const PREFIX: &str = "skills:";

/// The page of `items` that starts at `cursor` (the first without one),
/// of at most `size` items, and the cursor of the next page.
pub(super) fn page<'a, T>(
    items: &'a [T],
    cursor: Option<&str>,
    size: usize,
) -> Result<(&'a [T], Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => decode(cursor)
            .filter(|&start| start > 0 && start < items.len())
            .ok_or_else(|| invalid_params(format!("Invalid cursor {cursor:?}")))?,
    };
    let end = start.saturating_add(size.max(1)).min(items.len());
    let next = (end < items.len()).then(|| URL_SAFE_NO_PAD.encode(format!("{PREFIX}{end}")));
    Ok((&items[start..end], next))
}

fn decode(cursor: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    std::str::from_utf8(&bytes)
        .ok()?
        .strip_prefix(PREFIX)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_follow_each_other_and_only_issued_cursors_are_taken() {
        let items = [1, 2, 3, 4, 5];
        let (first, next) = page(&items, None, 2).unwrap();
        assert_eq!(first, [1, 2]);
        let (second, next) = page(&items, next.as_deref(), 2).unwrap();
        assert_eq!(second, [3, 4]);
        let (last, next) = page(&items, next.as_deref(), 2).unwrap();
        assert_eq!((last, next), (&[5][..], None));
        for bad in [
            "",
            "x",
            &URL_SAFE_NO_PAD.encode("skills:9"),
            &URL_SAFE_NO_PAD.encode("skills:0"),
        ] {
            let error = page(&items, Some(bad), 2).unwrap_err();
            assert_eq!(error.code, crate::wire::codes::INVALID_PARAMS, "{bad}");
            assert!(
                error.message.starts_with("Invalid cursor"),
                "{}",
                error.message
            );
        }
        let empty: [u8; 0] = [];
        assert_eq!(page(&empty, None, 2).unwrap(), (&empty[..], None));
    }
}
