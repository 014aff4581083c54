//! The React app: embedded in the binary at build time (so one file deploys), or read from
//! `--static-dir`. Client routes get index.html; hashed assets are cached for a year.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

#[derive(rust_embed::Embed)]
#[folder = "../../web/dist"]
#[allow_missing = true]
struct Embedded;

pub struct WebAssets {
    static_dir: Option<PathBuf>,
}

impl WebAssets {
    pub fn new(static_dir: Option<PathBuf>) -> WebAssets {
        WebAssets { static_dir }
    }

    fn read(&self, relative: &str) -> Option<Cow<'static, [u8]>> {
        match &self.static_dir {
            Some(dir) => {
                let safe = Path::new(relative)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)));
                if !safe {
                    return None;
                }
                std::fs::read(dir.join(relative)).ok().map(Cow::Owned)
            }
            None => Embedded::get(relative).map(|file| file.data),
        }
    }

    /// Whether an app build is available at all.
    pub fn has_app(&self) -> bool {
        self.read("index.html").is_some()
    }

    /// The file at `path`, or index.html for a client-side route.
    pub fn respond(&self, path: &str) -> Response {
        let relative = path.trim_start_matches('/');
        if !relative.is_empty() {
            if let Some(bytes) = self.read(relative) {
                let mime = mime_guess::from_path(relative).first_or_octet_stream();
                let cache = if relative.starts_with("assets/") {
                    "public, max-age=31536000, immutable"
                } else {
                    "no-cache"
                };
                return file_response(bytes, mime.as_ref(), cache);
            }
            // A missing file with an extension is a 404, not the app.
            if Path::new(relative).extension().is_some() {
                return ApiError::not_found().into_response();
            }
        }
        match self.read("index.html") {
            Some(bytes) => file_response(bytes, "text/html; charset=utf-8", "no-cache"),
            None => (
                StatusCode::SERVICE_UNAVAILABLE,
                "The web app is not built. Run `make web` (or `make run`), or pass --static-dir.",
            )
                .into_response(),
        }
    }
}

fn file_response(bytes: Cow<'static, [u8]>, mime: &str, cache: &'static str) -> Response {
    let mut response = bytes.into_owned().into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(mime) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    response
}
