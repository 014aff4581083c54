//! Martingale chains (DESIGN.md section 5): a chain opens with `martingale_initial_margin`,
//! each losing trade opens the next step with the margin multiplied by `martingale_step`,
//! a winning trade or a losing last step ends it. Also the risk preview the Settings page
//! shows before the trader commits to a chain.

use rust_decimal::Decimal;
use serde::Serialize;

use crate::settings::BotSettings;

/// Margin of `step` (1 is the chain's first trade): initial x step_multiplier^(step - 1).
/// Saturates at `Decimal::MAX` rather than overflowing (a margin that large is refused by
/// every check after it anyway).
pub fn step_margin(settings: &BotSettings, step: u32) -> Decimal {
    let mut margin = settings.martingale_initial_margin;
    for _ in 1..step {
        margin = margin.saturating_mul(settings.martingale_step);
    }
    margin
}

/// What a closed trade means for its chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainOutcome {
    /// The chain ends: `won` when the trade closed in profit.
    Closed { won: bool },
    /// Open step `step` at once.
    NextStep { step: u32 },
}

/// After the trade of `step` closed with `pnl`: a profit ends the chain, a loss opens the
/// next step until `martingale_max_depth` trades have been made.
pub fn after_close(settings: &BotSettings, step: u32, pnl: Decimal) -> ChainOutcome {
    if pnl > Decimal::ZERO {
        ChainOutcome::Closed { won: true }
    } else if step >= settings.martingale_max_depth {
        ChainOutcome::Closed { won: false }
    } else {
        ChainOutcome::NextStep { step: step + 1 }
    }
}

/// One step of the preview.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RiskStep {
    pub step: u32,
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub margin: Decimal,
    /// margin x leverage.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub notional: Decimal,
    /// Margin of this step and every one before it: what a chain lost to here has cost.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub cumulative_margin: Decimal,
    /// How far the price may move against the position before liquidation, in percent.
    #[serde(with = "rust_decimal::serde::float")]
    #[schema(value_type = f64)]
    pub liquidation_distance_pct: Decimal,
    /// Whether the stop loss fires before liquidation.
    pub stop_before_liquidation: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RiskPreview {
    pub steps: Vec<RiskStep>,
    /// Sentences a trader should read before starting.
    pub warnings: Vec<String>,
}

/// Every step of a chain of the current settings, and what can go wrong: a last step that
/// does not fit in `max_total_usdt` (with every allowed chain at its last step), chains that
/// together cost more than the wallet, and a stop loss that sits past the liquidation price. `maintenance_margin_rate` is the venue's
/// (0.005 on Bybit's first tier).
pub fn risk_preview(
    settings: &BotSettings,
    wallet_balance: Option<Decimal>,
    maintenance_margin_rate: Decimal,
) -> RiskPreview {
    let leverage = Decimal::from(settings.leverage.max(1));
    let liquidation_distance_pct = ((Decimal::ONE / leverage - maintenance_margin_rate)
        * Decimal::ONE_HUNDRED)
        .max(Decimal::ZERO)
        .round_dp(2);
    let stop_before_liquidation = settings.initial_stop_loss_pct < liquidation_distance_pct;
    let mut cumulative = Decimal::ZERO;
    let steps: Vec<RiskStep> = (1..=settings.martingale_max_depth)
        .map(|step| {
            let margin = step_margin(settings, step);
            cumulative = cumulative.saturating_add(margin);
            RiskStep {
                step,
                margin,
                notional: margin.saturating_mul(leverage),
                cumulative_margin: cumulative,
                liquidation_distance_pct,
                stop_before_liquidation,
            }
        })
        .collect();
    let mut warnings = Vec::new();
    let largest = steps.last().map(|s| s.margin).unwrap_or_default();
    let chains = Decimal::from(settings.martingale_max_active_chains.max(1));
    if largest.saturating_mul(chains) > settings.max_total_usdt {
        warnings.push(format!(
            "The last step's margin ({largest} USDT) across {chains} active chain(s) exceeds \
             max_total_usdt ({} USDT): that step would be skipped and the chain end in a loss.",
            settings.max_total_usdt
        ));
    }
    if let Some(wallet) = wallet_balance {
        if cumulative.saturating_mul(chains) > wallet {
            warnings.push(format!(
                "A chain lost to its last step costs {cumulative} USDT per chain, more than the \
                 wallet's {wallet} USDT."
            ));
        }
    }
    if !stop_before_liquidation {
        warnings.push(format!(
            "The stop loss ({}%) is beyond the liquidation distance ({liquidation_distance_pct}%) \
             at {}x: positions are liquidated before the stop fires.",
            settings.initial_stop_loss_pct, settings.leverage
        ));
    }
    RiskPreview { steps, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn martingale() -> BotSettings {
        BotSettings::default() // initial 2 USDT, x2, depth 4, 10x, SL 5 %
    }

    #[test]
    fn step_margins_multiply() {
        let s = martingale();
        let margins: Vec<Decimal> = (1..=4).map(|k| step_margin(&s, k)).collect();
        assert_eq!(margins, [dec!(2), dec!(4), dec!(8), dec!(16)]);
        let s = BotSettings {
            martingale_step: dec!(1.5),
            martingale_initial_margin: dec!(10),
            ..martingale()
        };
        assert_eq!(step_margin(&s, 3), dec!(22.50));
    }

    #[test]
    fn a_profit_ends_the_chain_a_loss_steps_until_the_depth() {
        let s = martingale();
        assert_eq!(
            after_close(&s, 1, dec!(0.5)),
            ChainOutcome::Closed { won: true }
        );
        assert_eq!(
            after_close(&s, 1, dec!(-1)),
            ChainOutcome::NextStep { step: 2 }
        );
        assert_eq!(
            after_close(&s, 3, dec!(0)),
            ChainOutcome::NextStep { step: 4 }
        );
        assert_eq!(
            after_close(&s, 4, dec!(-1)),
            ChainOutcome::Closed { won: false }
        );
    }

    #[test]
    fn the_preview_adds_up_and_warns() {
        let s = martingale();
        let p = risk_preview(&s, Some(dec!(10000)), dec!(0.005));
        let cumulative: Vec<Decimal> = p.steps.iter().map(|x| x.cumulative_margin).collect();
        assert_eq!(cumulative, [dec!(2), dec!(6), dec!(14), dec!(30)]);
        assert_eq!(p.steps[3].notional, dec!(160));
        // 1/10 - 0.005 = 9.5 %: the 5 % stop fires first.
        assert_eq!(p.steps[0].liquidation_distance_pct, dec!(9.50));
        assert!(p.steps[0].stop_before_liquidation);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);

        let risky = BotSettings {
            leverage: 50,
            martingale_initial_margin: dec!(100),
            max_total_usdt: dec!(500),
            ..martingale()
        };
        let p = risk_preview(&risky, Some(dec!(1000)), dec!(0.005));
        assert_eq!(p.warnings.len(), 3, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("max_total_usdt"));
        assert!(p.warnings[1].contains("wallet"));
        assert!(p.warnings[2].contains("liquidated before the stop"));
    }

    #[test]
    fn extreme_settings_saturate_instead_of_panicking() {
        let s = BotSettings {
            martingale_initial_margin: dec!(1_000_000_000),
            martingale_step: dec!(1_000_000_000),
            martingale_max_depth: crate::settings::MAX_MARTINGALE_DEPTH,
            martingale_max_active_chains: 1_000_000,
            leverage: crate::settings::MAX_LEVERAGE as u32,
            ..martingale()
        };
        let p = risk_preview(&s, Some(Decimal::MAX), dec!(0.005));
        assert_eq!(p.steps.len(), 20);
        assert_eq!(p.steps[19].margin, Decimal::MAX);
        assert_eq!(p.steps[19].cumulative_margin, Decimal::MAX);
        assert!(!p.warnings.is_empty());
        // Far past the depth a trader may choose: still no overflow.
        assert_eq!(step_margin(&s, 1000), Decimal::MAX);
    }
}
