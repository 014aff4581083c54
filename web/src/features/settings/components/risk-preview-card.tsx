import { Calculator, TriangleAlert } from 'lucide-react'
import { liveNumberFormat } from '@/lib/format-number'
import { useId, useMemo, useState } from 'react'
import { useWatch, type Control } from 'react-hook-form'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { LoadingState } from '@/components/query-state'
import { Spinner } from '@/components/ui/spinner'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { ApiError } from '@/lib/api-client'
import { useDebouncedValue } from '@/lib/use-debounced-value'
import { cn } from '@/lib/utils'
import type { BotSettingsPayload, RiskPreview } from '@/types/api'
import { useRiskPreview } from '@/features/settings/api/get-risk-preview'
import { settingsStrings } from '@/features/settings/strings'
import { settingsFormSchema, type SettingsFormValues } from '@/features/settings/utils/settings-form'

const s = settingsStrings.riskPreview

/** The form's values are asked about once they have stayed unchanged this long. */
export const RISK_PREVIEW_DEBOUNCE_MS = 400

const amount = liveNumberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2 })

type Problem = { field: string; message: string }

/** What to ask the server: the payload the form would save, or why there is none. */
type PreviewRequest = { payload: BotSettingsPayload } | { invalid: Problem[] }

function previewRequest(values: unknown): PreviewRequest {
  const parsed = settingsFormSchema.safeParse(values)
  if (parsed.success) return { payload: parsed.data }
  return {
    invalid: parsed.error.issues.map((issue) => ({
      field: typeof issue.path[0] === 'string' ? issue.path[0] : '',
      message: issue.message,
    })),
  }
}

/** A field's label on the form (its API name when the form has none). */
function fieldLabel(field: string): string {
  return field in settingsStrings.fields
    ? settingsStrings.fields[field as keyof typeof settingsStrings.fields]
    : field
}

/** The server's reasons for refusing a payload: each field's messages, else its sentence. */
function serverProblems(error: Error): Problem[] {
  if (error instanceof ApiError && error.fields) {
    const problems = Object.entries(error.fields).flatMap(([field, messages]) =>
      messages.map((message) => ({ field, message })),
    )
    if (problems.length) return problems
  }
  return [{ field: '', message: error.message }]
}

type RiskPreviewCardProps = {
  control: Control<SettingsFormValues, unknown, BotSettingsPayload>
}

/**
 * "Martingale risk preview" under the settings form in martingale mode (not in the spec): the form's
 * current values, 400 ms after the last change, go to POST /api/bot-settings/risk-preview/; the
 * answer's steps and warnings are shown. The last good answer stays (dimmed) while a new one loads
 * or when the values cannot be checked; why they cannot is a short note.
 */
export function RiskPreviewCard({ control }: RiskPreviewCardProps) {
  const headingId = useId()
  const values = useWatch({ control })
  // JSON, so an unchanged request is the same string however often the form renders.
  const requestJson = useMemo(() => JSON.stringify(previewRequest(values)), [values])
  const debouncedJson = useDebouncedValue(requestJson, RISK_PREVIEW_DEBOUNCE_MS)
  const request = useMemo(() => JSON.parse(debouncedJson) as PreviewRequest, [debouncedJson])
  const payload = 'payload' in request ? request.payload : null
  const preview = useRiskPreview(payload)

  // The newest answer that came back, kept while the next request loads or fails.
  const [lastGood, setLastGood] = useState<RiskPreview | undefined>(undefined)
  if (preview.data !== undefined && preview.data !== lastGood) setLastGood(preview.data)
  const shown = preview.data ?? lastGood

  const problems = 'invalid' in request ? request.invalid : preview.error ? serverProblems(preview.error) : []
  // The form's rules or the server's (400) refused the values; anything else is a failure to check.
  const refused = 'invalid' in request || (preview.error instanceof ApiError && preview.error.status === 400)
  const loading = payload !== null && preview.isFetching
  const stale = shown !== undefined && shown !== preview.data

  return (
    <Card role="region" aria-labelledby={headingId} aria-busy={loading}>
      <CardHeader className="flex-row items-start gap-3 space-y-0 pb-5">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
          <Calculator aria-hidden="true" className="size-[18px]" />
        </span>
        <div className="min-w-0 flex-1 space-y-1">
          <CardTitle>
            <h2 id={headingId} className="text-base">
              {s.title}
            </h2>
          </CardTitle>
          <CardDescription>{s.description}</CardDescription>
        </div>
        {loading && shown ? (
          <span className="flex shrink-0 items-center gap-2 text-xs text-muted-foreground">
            <Spinner className="size-3.5" />
            {s.updating}
          </span>
        ) : null}
      </CardHeader>
      <CardContent className="space-y-4">
        {problems.length > 0 ? (
          <div className="rounded-md border border-dashed px-3 py-2 text-sm text-muted-foreground">
            <p>{refused ? s.invalid : s.failed}</p>
            <ul className="mt-1 list-disc space-y-0.5 pl-5">
              {problems.map(({ field, message }) => (
                <li key={`${field}:${message}`}>
                  {field ? <span className="font-medium text-foreground">{fieldLabel(field)}: </span> : null}
                  {message}
                </li>
              ))}
            </ul>
            {shown ? <p className="mt-1 text-xs">{s.stale}</p> : null}
          </div>
        ) : null}

        {shown === undefined ? (
          loading ? (
            <LoadingState label={s.loading} className="py-8" />
          ) : null
        ) : (
          <div className={cn('space-y-4 transition-opacity', stale && 'opacity-60')}>
            <Table phoneCards aria-labelledby={headingId}>
              <TableHeader>
                <TableRow className="hover:bg-transparent">
                  <TableHead scope="col">{s.columns.step}</TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.margin}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.notional}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.cumulative}
                  </TableHead>
                  <TableHead scope="col" className="text-right">
                    {s.columns.liquidation}
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {shown.steps.map((step) => (
                  <TableRow key={step.step}>
                    <TableCell className="font-medium tabular-nums">{step.step}</TableCell>
                    <TableCell className="text-right font-mono tabular-nums">
                      {amount.format(step.margin)}
                    </TableCell>
                    <TableCell className="text-right font-mono tabular-nums">
                      {amount.format(step.notional)}
                    </TableCell>
                    <TableCell className="text-right font-mono tabular-nums">
                      {amount.format(step.cumulative_margin)}
                    </TableCell>
                    <TableCell
                      className={cn(
                        'text-right font-mono tabular-nums',
                        !step.stop_before_liquidation && 'font-medium text-destructive',
                      )}
                    >
                      {amount.format(step.liquidation_distance_pct)}
                      {step.stop_before_liquidation ? null : (
                        <span className="sr-only"> ({s.stopAfterLiquidation})</span>
                      )}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>

            {shown.warnings.length > 0 ? (
              <div className="space-y-2">
                <h3 aria-hidden="true" className="text-sm font-medium">
                  {s.warnings}
                </h3>
                <ul aria-label={s.warnings} className="space-y-2">
                  {shown.warnings.map((warning) => (
                    <li
                      key={warning}
                      className="flex items-start gap-2 rounded-md border border-amber-500/40 bg-amber-500/10 px-3 py-2.5 text-sm text-amber-700 dark:text-amber-300"
                    >
                      <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
                      <span>{warning}</span>
                    </li>
                  ))}
                </ul>
              </div>
            ) : (
              <p className="text-sm text-muted-foreground">{s.noWarnings}</p>
            )}

            {shown.wallet_balance !== null ? (
              <p className="text-xs text-muted-foreground">{s.wallet(amount.format(shown.wallet_balance))}</p>
            ) : null}
          </div>
        )}
      </CardContent>
    </Card>
  )
}
