import type { Signal } from '@/types/api'

/** The three values the bot trades on (spec section 3), each with its weight for the record. */
export type SignalKind = 'STRONG_BUY' | 'STRONG_SELL' | 'NEUTRAL'

/** The value as sent: `recommendation`, else its other name `signal`; empty when neither is set. */
export function signalValue(signal: Pick<Signal, 'recommendation' | 'signal'>): string {
  return (signal.recommendation || signal.signal).trim()
}

/** Spec section 3: case-insensitive, and anything else (or nothing) is NEUTRAL. */
export function signalKind(value: string): SignalKind {
  const upper = value.trim().toUpperCase()
  return upper === 'STRONG_BUY' || upper === 'STRONG_SELL' ? upper : 'NEUTRAL'
}
