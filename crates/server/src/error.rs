//! The one HTTP error type: every failure leaves as `{"error": "<sentence>"}`, with
//! `"fields"` on validation errors. 5xx details are logged and hidden from the client.

use std::collections::BTreeMap;

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use signaldesk_engine::EngineError;
use signaldesk_store::StoreError;

/// What a client reads while the database is unreachable.
pub const STORE_UNAVAILABLE: &str = "The database is unreachable: Signal Desk is running in \
     degraded mode and will recover by itself.";
/// `Retry-After` on those answers.
const STORE_RETRY_AFTER_SECS: u64 = 5;

/// Per-field validation messages, in field order.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    pub fields: Option<FieldErrors>,
    pub retry_after_secs: Option<u64>,
    /// A login whose password was right but whose two-factor code was missing or wrong.
    pub otp_required: bool,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<HashMap<String, Vec<String>>>)]
    pub fields: Option<FieldErrors>,
    /// `true` on a login refused for want of a right two-factor code (the password was
    /// right): ask for the code and send it as `otp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub otp_required: Option<bool>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            fields: None,
            retry_after_secs: None,
            otp_required: false,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn validation(fields: FieldErrors) -> ApiError {
        let first = fields
            .iter()
            .next()
            .map(|(field, msgs)| format!("{field}: {}", msgs.join(" ")))
            .unwrap_or_default();
        ApiError {
            fields: Some(fields),
            ..ApiError::bad_request(format!("Invalid input. {first}").trim().to_string())
        }
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, message)
    }

    /// 401 `{"error", "otp_required": true}`: the password was right, the code was not.
    pub fn otp_required(message: impl Into<String>) -> ApiError {
        ApiError {
            otp_required: true,
            ..ApiError::unauthorized(message)
        }
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }

    pub fn not_found() -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "Not found.")
    }

    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    pub fn too_many_requests(retry_after_secs: u64) -> ApiError {
        ApiError {
            retry_after_secs: Some(retry_after_secs),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("Too many attempts. Try again in {retry_after_secs} seconds."),
            )
        }
    }

    /// The database is unreachable (degraded mode): 503, and a sentence saying it will pass.
    pub fn store_unavailable(detail: impl std::fmt::Display) -> ApiError {
        tracing::warn!(error = %detail, "database unreachable");
        ApiError {
            retry_after_secs: Some(STORE_RETRY_AFTER_SECS),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, STORE_UNAVAILABLE)
        }
    }

    /// A server-side failure: the details go to the log, the client gets a plain sentence.
    pub fn internal(detail: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %detail, "internal error");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error.")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: self.message,
            fields: self.fields,
            otp_required: self.otp_required.then_some(true),
        };
        let mut response = (self.status, Json(body)).into_response();
        if let Some(secs) = self.retry_after_secs {
            if let Ok(value) = HeaderValue::from_str(&secs.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::NotFound => ApiError::not_found(),
            StoreError::Conflict(_) => ApiError::conflict("This conflicts with existing data."),
            err @ StoreError::Unavailable(_) => ApiError::store_unavailable(err),
            other => ApiError::internal(other),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(err: EngineError) -> Self {
        match err {
            EngineError::NoActiveKey
            | EngineError::NoSettings
            | EngineError::KeyRefused { .. }
            | EngineError::KeyMovesFunds { .. } => ApiError::bad_request(err.to_string()),
            EngineError::SignalsInactive
            | EngineError::TradeNotOpen
            | EngineError::WorkerGone
            | EngineError::RunsElsewhere
            | EngineError::NoAnswer
            | EngineError::NotBooked => ApiError::conflict(err.to_string()),
            EngineError::Busy => ApiError::too_many_requests(1),
            EngineError::Store(e) => e.into(),
            EngineError::Venue(e) => ApiError::bad_request(e.to_string()),
            EngineError::Config(e) => ApiError::internal(e),
            // The instance running the bot refused: the same status it would have answered.
            EngineError::Remote { ref code, .. } => match code.as_str() {
                "store_unavailable" => ApiError::store_unavailable(err),
                "venue" | "key_refused" | "key_moves_funds" => {
                    ApiError::bad_request(err.to_string())
                }
                "store" | "config" => ApiError::internal(err),
                _ => ApiError::conflict(err.to_string()),
            },
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let status = match &rejection {
            JsonRejection::MissingJsonContentType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            JsonRejection::BytesRejection(_) => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::BAD_REQUEST,
        };
        let message = match &rejection {
            JsonRejection::JsonDataError(e) => format!("Invalid request body: {}", e.body_text()),
            JsonRejection::JsonSyntaxError(_) => "Malformed JSON in request body.".to_string(),
            JsonRejection::MissingJsonContentType(_) => {
                "Expected a JSON body with Content-Type: application/json.".to_string()
            }
            JsonRejection::BytesRejection(_) => "Request body is too large.".to_string(),
            other => other.body_text(),
        };
        ApiError::new(status, message)
    }
}

impl From<PathRejection> for ApiError {
    fn from(_: PathRejection) -> Self {
        ApiError::not_found()
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::bad_request(format!(
            "Invalid query parameters: {}",
            rejection.body_text()
        ))
    }
}

/// `axum::Json` whose rejections are [`ApiError`]s.
#[derive(axum::extract::FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);

/// `axum::extract::Path` whose rejections are 404s (a malformed id names nothing).
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct ApiPath<T>(pub T);

/// `axum::extract::Query` whose rejections are 400s.
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct ApiQuery<T>(pub T);

pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_database_is_a_503_and_a_query_error_a_500() {
        let down = ApiError::from(StoreError::Unavailable(sqlx::Error::PoolTimedOut));
        assert_eq!(down.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(down.message, STORE_UNAVAILABLE);
        assert_eq!(down.retry_after_secs, Some(STORE_RETRY_AFTER_SECS));
        let bad = ApiError::from(StoreError::Database(sqlx::Error::ColumnNotFound(
            "x".into(),
        )));
        assert_eq!(bad.status, StatusCode::INTERNAL_SERVER_ERROR);
        let wrapped = ApiError::from(EngineError::Store(StoreError::Unavailable(
            sqlx::Error::PoolClosed,
        )));
        assert_eq!(wrapped.status, StatusCode::SERVICE_UNAVAILABLE);
    }
}
