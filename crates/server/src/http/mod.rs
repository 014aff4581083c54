//! HTTP plumbing that is not an API resource: health, metrics, security headers, the
//! OpenAPI document, JSON fallbacks and the web app.

pub mod fallback;
pub mod health;
pub mod metrics;
pub mod security;
pub mod spa;
