//! The one route table. Every `/api/` route is registered through `routes!`, which also puts
//! it in the OpenAPI document, so the two cannot drift apart.

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::Request;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{middleware, Json, Router};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::{
    alerts, api_keys, audit_log, backtest_chart, backtests, balance, bot, dashboard,
    live_statistics, logs, notification_channels, parity, settings, signals, stats, trade_chart,
    trade_search, trades, trades_export, webhook,
};
use crate::app::AppState;
use crate::auth::handlers as auth;
use crate::auth::{sessions, two_factor};
use crate::error::ApiError;
use crate::http::{fallback, health, metrics, security};
use crate::ws;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Signal Desk API",
        description = "The API of the Signal Desk trading dashboard."
    ),
    paths(openapi_document),
    // The websocket's messages, both ways (docs/websocket.md): the web app reads their types
    // from this document like every other.
    components(schemas(
        crate::error::ErrorBody,
        crate::ws::protocol::ServerMessage,
        signaldesk_core::client_message::ClientMessage,
        crate::ws::protocol::PositionView,
        crate::ws::protocol::BotStatusView,
        crate::api::balance::BalanceView,
        crate::api::logs::LogView,
        crate::api::signals::SignalView,
        crate::api::alerts::AlertView,
        signaldesk_core::stats::LiveStatistics
    ))
)]
struct ApiDoc;

/// Every `/api/` route, with its OpenAPI description.
pub fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(auth::login))
        .routes(routes!(auth::register))
        .routes(routes!(auth::logout))
        .routes(routes!(auth::me))
        .routes(routes!(auth::check))
        .routes(routes!(auth::token))
        .routes(routes!(auth::change_password))
        .routes(routes!(two_factor::setup))
        .routes(routes!(two_factor::enable))
        .routes(routes!(two_factor::disable))
        .routes(routes!(sessions::list))
        .routes(routes!(sessions::revoke))
        .routes(routes!(sessions::revoke_others))
        .routes(routes!(audit_log::list))
        .routes(routes!(settings::list, settings::create))
        .routes(routes!(settings::read, settings::update))
        .routes(routes!(settings::risk_preview))
        .routes(routes!(bot::start_trading_worker))
        .routes(routes!(bot::stop_bot))
        .routes(routes!(bot::start_signals))
        .routes(routes!(bot::stop_signals))
        .routes(routes!(bot::command_bot_start))
        .routes(routes!(bot::command_bot_stop))
        .routes(routes!(bot::command_signals_start))
        .routes(routes!(bot::command_signals_stop))
        .routes(routes!(bot::status))
        .routes(routes!(api_keys::list, api_keys::create))
        .routes(routes!(api_keys::delete))
        .routes(routes!(api_keys::set_active))
        .routes(routes!(api_keys::deactivate))
        .routes(routes!(logs::list))
        .routes(routes!(signals::list))
        .routes(routes!(signals::latest))
        .routes(routes!(balance::read))
        .routes(routes!(dashboard::read))
        .routes(routes!(trades::list))
        .routes(routes!(trades::close))
        .routes(routes!(trades::close_all))
        .routes(routes!(trade_search::search))
        .routes(routes!(trades_export::export))
        .routes(routes!(trade_chart::chart))
        .routes(routes!(stats::summary))
        .routes(routes!(stats::daily))
        .routes(routes!(stats::weekly))
        .routes(routes!(stats::monthly))
        .routes(routes!(stats::custom))
        .routes(routes!(stats::chains))
        .routes(routes!(live_statistics::read))
        .routes(routes!(backtests::list, backtests::create))
        .routes(routes!(
            backtests::read,
            backtests::label,
            backtests::delete
        ))
        .routes(routes!(backtests::cancel))
        .routes(routes!(backtest_chart::chart))
        .routes(routes!(parity::read))
        .routes(routes!(
            webhook::status,
            webhook::regenerate,
            webhook::delete
        ))
        .routes(routes!(webhook::receive))
        .routes(routes!(alerts::list))
        .routes(routes!(
            notification_channels::list,
            notification_channels::create
        ))
        .routes(routes!(
            notification_channels::update,
            notification_channels::delete
        ))
        .routes(routes!(notification_channels::test))
}

/// The OpenAPI 3 document of every `/api/` route (served by `build`, documented here).
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI document")))]
#[allow(dead_code)]
fn openapi_document() {}

/// The OpenAPI document of every `/api/` route (`GET /api/openapi.json`, `signaldesk openapi`).
pub fn document() -> serde_json::Value {
    crate::openapi::finish(api().split_for_parts().1)
}

pub fn build(state: AppState) -> Router {
    let (api, document) = api().split_for_parts();
    let document = Arc::new(crate::openapi::finish(document));
    let metrics_state = state.metrics.clone();
    let body_limit = state.config.max_body_bytes;
    Router::new()
        .merge(api)
        .route(
            "/api/openapi.json",
            get(move || {
                let document = document.clone();
                async move { Json(document.as_ref().clone()) }
            }),
        )
        .route("/ws/dashboard/", get(ws::dashboard))
        .route("/healthz", get(health::healthz))
        .route("/metrics", get(health::metrics))
        .fallback(fallback::not_found)
        .method_not_allowed_fallback(fallback::method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::internal("a handler panicked").into_response()
        }))
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn(security::headers))
        .layer(TraceLayer::new_for_http().make_span_with(|request: &Request<_>| {
            tracing::info_span!("http", method = %request.method(), path = %redacted_path(request.uri().path()))
        }))
        .layer(middleware::from_fn_with_state(metrics_state, metrics::track))
        .with_state(state)
}

/// Paths that carry a secret (webhook URLs) are logged without it.
fn redacted_path(path: &str) -> String {
    match path.strip_prefix("/api/webhook/") {
        Some(_) => "/api/webhook/<secret>/".to_string(),
        None => path.to_string(),
    }
}
