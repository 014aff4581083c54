//! The `/api/stats/` family's answers: period statistics, grouped rows and martingale chains.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::Serialize;
use signaldesk_core::stats::{PeriodRow, PeriodStats};
use signaldesk_store::repo::stats::ChainWithTrades;
use signaldesk_store::{ChainStatus, TradeStatus};
use utoipa::ToSchema;

use crate::wire::rfc3339;

#[derive(Serialize, ToSchema)]
pub struct WeekdayRowView {
    /// 1 = Sunday ... 7 = Saturday, in the user's zone.
    pub weekday: u32,
    pub pnl: f64,
    /// Trades won (pnl > 0).
    pub success: u64,
    /// Trades lost (pnl <= 0).
    pub fail: u64,
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub struct HourRowView {
    /// 0 to 23, in the user's zone.
    pub hour: u32,
    pub pnl: f64,
    pub success: u64,
    pub fail: u64,
    pub total: u64,
}

/// The spec's Stats response: over trades closed in the period.
#[derive(Serialize, ToSchema)]
pub struct StatsView {
    pub total_trades: u64,
    pub win_trades: u64,
    /// Trades closed with pnl <= 0.
    pub lose_trades: u64,
    /// Percent.
    pub win_rate: f64,
    pub total_pnl: f64,
    pub avg_pnl: f64,
    /// Weekdays with trades, by number.
    pub weekday: Vec<WeekdayRowView>,
    /// Hours with trades, by hour.
    pub hour: Vec<HourRowView>,
    /// Beyond the spec, for the /stats page's heatmap: weekday x hour cells with trades.
    pub heatmap: Vec<HeatmapCellView>,
    /// Beyond the spec, for the /stats page's equity curve: the period's cumulative pnl,
    /// oldest first, at most 500 points.
    pub equity: Vec<EquityPointView>,
}

#[derive(Serialize, ToSchema)]
pub struct HeatmapCellView {
    /// 1 = Sunday ... 7 = Saturday, in the user's zone.
    pub weekday: u32,
    /// 0 to 23, in the user's zone.
    pub hour: u32,
    pub pnl: f64,
    pub total: u64,
}

#[derive(Serialize, ToSchema)]
pub struct EquityPointView {
    /// RFC 3339, UTC: the close time of the point's last trade (to the quarter hour).
    pub time: String,
    /// Cumulative pnl of the period up to `time`.
    pub pnl: f64,
}

impl From<PeriodStats> for StatsView {
    fn from(s: PeriodStats) -> Self {
        StatsView {
            total_trades: s.total_trades,
            win_trades: s.win_trades,
            lose_trades: s.lose_trades,
            win_rate: s.win_rate,
            total_pnl: s.total_pnl,
            avg_pnl: s.avg_pnl,
            weekday: s
                .weekday
                .into_iter()
                .map(|r| WeekdayRowView {
                    weekday: r.weekday,
                    pnl: r.stats.pnl,
                    success: r.stats.success,
                    fail: r.stats.fail,
                    total: r.stats.total,
                })
                .collect(),
            hour: s
                .hour
                .into_iter()
                .map(|r| HourRowView {
                    hour: r.hour,
                    pnl: r.stats.pnl,
                    success: r.stats.success,
                    fail: r.stats.fail,
                    total: r.stats.total,
                })
                .collect(),
            heatmap: s
                .heatmap
                .into_iter()
                .map(|c| HeatmapCellView {
                    weekday: c.weekday,
                    hour: c.hour,
                    pnl: c.pnl,
                    total: c.total,
                })
                .collect(),
            equity: s
                .equity
                .into_iter()
                .map(|p| EquityPointView {
                    time: rfc3339(p.at_ms),
                    pnl: p.pnl,
                })
                .collect(),
        }
    }
}

/// One day, ISO week or month.
#[derive(Serialize, ToSchema)]
pub struct PeriodRowView {
    /// `2026-11-23`, `2026-W48` or `2026-11`, in the user's zone.
    pub period: String,
    pub pnl: f64,
    pub trades: u64,
    /// Percent.
    pub win_rate: f64,
}

impl From<PeriodRow> for PeriodRowView {
    fn from(r: PeriodRow) -> Self {
        PeriodRowView {
            period: r.period,
            pnl: r.pnl,
            trades: r.trades,
            win_rate: r.win_rate,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct ChainTradeView {
    pub id: i64,
    /// Net pnl; null while the trade is not closed.
    pub pnl: Option<f64>,
    pub created_at: String,
}

#[derive(Serialize, ToSchema)]
pub struct ChainView {
    pub chain_id: i64,
    /// OPEN or CLOSED.
    pub status: &'static str,
    pub trades_count: usize,
    /// Sum of its trades' pnl.
    pub total_pnl: f64,
    pub trades: Vec<ChainTradeView>,
}

#[derive(Serialize, ToSchema)]
pub struct ChainsAnswer {
    pub chains: Vec<ChainView>,
}

fn money(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

impl From<ChainWithTrades> for ChainView {
    fn from(c: ChainWithTrades) -> Self {
        ChainView {
            chain_id: c.id,
            status: match c.status {
                ChainStatus::Open => "OPEN",
                ChainStatus::Closed => "CLOSED",
            },
            trades_count: c.trades.len(),
            total_pnl: money(c.trades.iter().map(|t| t.pnl).sum()),
            trades: c
                .trades
                .into_iter()
                .map(|t| ChainTradeView {
                    id: t.id,
                    pnl: (t.status == TradeStatus::Closed).then(|| money(t.pnl)),
                    created_at: rfc3339(t.created_at),
                })
                .collect(),
        }
    }
}
