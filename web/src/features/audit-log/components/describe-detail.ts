import { auditLogStrings as s } from '@/features/audit-log/strings'
import type { AuditEntry } from '@/types/api'

type Detail = Record<string, unknown>

/** A stored value as one short text: strings as they are, lists joined, anything else as JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return s.none
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.length === 0 ? s.none : value.map(valueText).join(', ')
  return JSON.stringify(value)
}

function num(detail: Detail, key: string): number {
  const value = detail[key]
  return typeof value === 'number' ? value : 0
}

function str(detail: Detail, key: string): string {
  const value = detail[key]
  return typeof value === 'string' ? value : ''
}

/** The Details cell of a row as lines: settings changes as "field: old → new", one per line. */
export function describeDetail(entry: AuditEntry): string[] {
  const detail: Detail = entry.detail
  switch (entry.action) {
    case 'settings_changed': {
      const changes = Array.isArray(detail.changes) ? (detail.changes as Detail[]) : []
      return changes.map((c) => `${str(c, 'field')}: ${valueText(c.old)} → ${valueText(c.new)}`)
    }
    case 'api_key_added':
    case 'api_key_activated':
    case 'api_key_deactivated':
    case 'api_key_deleted':
      return [s.details.key(num(detail, 'id'), str(detail, 'exchange'), detail.is_demo === true)]
    case 'position_closed':
      return [s.details.trade(num(detail, 'trade_id'), str(detail, 'symbol'))]
    case 'positions_closed_all':
      return [s.details.positions(num(detail, 'count'))]
    case 'login':
      return [s.details.loginVia[str(detail, 'via')] ?? str(detail, 'via')].filter(Boolean)
    case 'login_failed':
      return [
        `${s.details.failedReason[str(detail, 'reason')] ?? str(detail, 'reason')}, ${s.details.user(str(detail, 'username'))}`,
      ]
    case 'session_revoked':
    case 'logout':
      return 'session_id' in detail ? [s.details.session(num(detail, 'session_id'))] : []
    case 'sessions_revoked_others':
      return [s.details.sessions(num(detail, 'count'))]
    case 'password_changed':
      return [s.details.passwordChanged(num(detail, 'sessions_revoked'))]
    default:
      return Object.keys(detail).length === 0 ? [] : [JSON.stringify(detail)]
  }
}
