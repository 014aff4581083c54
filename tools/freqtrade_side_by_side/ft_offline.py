"""Run Freqtrade offline on the side-by-side contracts (issue 32).

Freqtrade loads its exchange's markets and leverage tiers through ccxt at start, even to
backtest; this machine cannot reach Bybit. This launcher replaces exactly those calls of
ccxt's bybit class (sync and async: `load_markets`, `fetch_leverage_tiers`,
`fetch_market_leverage_tiers`) with markets.py's contracts as ccxt would describe them
(linear USDT perpetuals, contract size 1, tick and step precision, 5 USDT minimum, taker and
maker fee 0.055 % like Signal Desk's paper exchange) and then runs Freqtrade's own command
line unchanged. Nothing else is patched; any other call to Bybit would fail loudly.

    /tmp/ft-venv/bin/python tools/freqtrade_side_by_side/ft_offline.py backtesting \
        --config tools/freqtrade_side_by_side/config.json --datadir /tmp/ft-side/data \
        --strategy-path tools/freqtrade_side_by_side --strategy SideBySide \
        --timeframe-detail 1m --timerange 20250101-20260101 --export none

Not part of `make test`.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ccxt  # noqa: E402
import ccxt.async_support  # noqa: E402

from markets import MIN_NOTIONAL, SYMBOLS, pair, risk_tiers  # noqa: E402

FEE = 0.00055


def market(symbol, tick, step, lev):
    base = symbol[:-4]
    return {
        "id": symbol, "symbol": pair(symbol), "base": base, "quote": "USDT", "settle": "USDT",
        "baseId": base, "quoteId": "USDT", "settleId": "USDT",
        "type": "swap", "spot": False, "margin": False, "swap": True, "future": False,
        "option": False, "contract": True, "linear": True, "inverse": False, "active": True,
        "contractSize": 1.0, "expiry": None, "expiryDatetime": None, "strike": None,
        "optionType": None, "taker": FEE, "maker": FEE, "percentage": True, "tierBased": False,
        "precision": {"amount": float(step), "price": float(tick)},
        "limits": {
            "amount": {"min": float(step), "max": 1e9},
            "price": {"min": float(tick), "max": 1e9},
            "cost": {"min": float(MIN_NOTIONAL), "max": None},
            "leverage": {"min": 1.0, "max": float(lev)},
        },
        "created": None, "info": {"symbol": symbol},
    }


MARKETS = [market(s, tick, step, lev) for s, _p, tick, step, lev, _v in SYMBOLS]
LEVERAGE = {s: lev for s, _p, _t, _s, lev, _v in SYMBOLS}


def tiers(symbol):
    """ccxt's leverage tiers of one of markets.py's symbols (BTC/USDT:USDT)."""
    out, floor = [], 0.0
    max_leverage = LEVERAGE[symbol.split("/")[0] + "USDT"]
    for n, (value, mm, ded, top) in enumerate(risk_tiers(max_leverage), 1):
        out.append({
            "tier": n, "symbol": symbol, "currency": "USDT", "minNotional": floor,
            "maxNotional": float(value), "maintenanceMarginRate": float(mm),
            "maxLeverage": float(top), "info": {"cum": str(ded)},
        })
        floor = float(value)
    return out


def all_tiers(symbols=None):
    return {m["symbol"]: tiers(m["symbol"]) for m in MARKETS
            if symbols is None or m["symbol"] in symbols}


def load_markets(self, reload=False, params={}):
    if reload or not self.markets:
        self.set_markets(MARKETS)
    return self.markets


async def aload_markets(self, reload=False, params={}):
    return load_markets(self, reload, params)


ccxt.bybit.load_markets = load_markets
ccxt.bybit.fetch_leverage_tiers = lambda self, symbols=None, params={}: all_tiers(symbols)
ccxt.bybit.fetch_market_leverage_tiers = lambda self, symbol, params={}: tiers(symbol)
ccxt.async_support.bybit.load_markets = aload_markets


async def _afetch_leverage_tiers(self, symbols=None, params={}):
    return all_tiers(symbols)


async def _afetch_market_leverage_tiers(self, symbol, params={}):
    return tiers(symbol)


ccxt.async_support.bybit.fetch_leverage_tiers = _afetch_leverage_tiers
ccxt.async_support.bybit.fetch_market_leverage_tiers = _afetch_market_leverage_tiers

if __name__ == "__main__":
    from freqtrade.main import main

    main(sys.argv[1:])
