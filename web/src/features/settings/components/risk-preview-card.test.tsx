import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { BotSettings, BotSettingsPayload, RiskPreview } from '@/types/api'
import { admin, settingsRecord, storeSession } from '@/testing/fixtures'
import { renderApp, stubServer } from '@/testing/render-app'
import { columnTexts } from '@/testing/table'

type Reply = { status: number; body?: unknown }

const LIQUIDATION_WARNING = (stop: number, distance: string, leverage: number) =>
  `The stop loss (${stop}%) is beyond the liquidation distance (${distance}%) at ${leverage}x: positions are liquidated before the stop fires.`

/** The server's figures (crates/core martingale::risk_preview) for the saved record plus the payload. */
function figure(saved: BotSettings, payload: BotSettingsPayload, wallet: number | null): RiskPreview {
  const s = { ...saved, ...payload }
  const distance = Math.max(0, (1 / s.leverage - 0.005) * 100)
  const stopFirst = s.initial_stop_loss_pct < distance
  let cumulative = 0
  const steps = Array.from({ length: s.martingale_max_depth }, (_, i) => {
    const margin = s.martingale_initial_margin * s.martingale_step ** i
    cumulative += margin
    return {
      step: i + 1,
      margin,
      notional: margin * s.leverage,
      cumulative_margin: cumulative,
      liquidation_distance_pct: Math.round(distance * 100) / 100,
      stop_before_liquidation: stopFirst,
    }
  })
  const warnings = stopFirst
    ? []
    : [LIQUIDATION_WARNING(s.initial_stop_loss_pct, distance.toFixed(2), s.leverage)]
  return { steps, warnings, wallet_balance: wallet }
}

/**
 * A settings server whose risk preview figures like the real one; `onPreview` may answer instead
 * (return undefined to let it figure).
 */
function previewServer(
  record: BotSettings,
  {
    wallet = null,
    onPreview,
  }: {
    wallet?: number | null
    onPreview?: (payload: BotSettingsPayload) => Reply | Promise<Reply> | undefined
  } = {},
) {
  const previews: BotSettingsPayload[] = []
  stubServer({
    'GET /api/auth/me/': () => ({ status: 200, body: admin }),
    'GET /api/bot-settings/': () => ({ status: 200, body: [record] }),
    'GET /api/webhook/': () => ({ status: 200, body: { configured: false, created_at: null } }),
    'POST /api/bot-settings/risk-preview/': ({ body }) => {
      const payload = body as BotSettingsPayload
      previews.push(payload)
      return onPreview?.(payload) ?? { status: 200, body: figure(record, payload, wallet) }
    },
  })
  return { previews }
}

async function openSettings() {
  storeSession()
  renderApp('/settings')
  await screen.findByRole('button', { name: 'Сохранить настройки' })
}

const previewCard = () => screen.getByRole('region', { name: 'Martingale risk preview' })

async function findPreviewCard() {
  return within(await screen.findByRole('region', { name: 'Martingale risk preview' }))
}

/** The text of one column of the steps table. */
const column = (index: number) => columnTexts(within(previewCard()).getByRole('table'), index)

describe('martingale risk preview', () => {
  it('appears only in martingale mode', async () => {
    const { previews } = previewServer(settingsRecord())
    await openSettings()
    expect(screen.queryByRole('region', { name: 'Martingale risk preview' })).not.toBeInTheDocument()
    expect(previews).toHaveLength(0)

    await userEvent.selectOptions(screen.getByLabelText('Режим бота'), 'martingale')
    const card = await findPreviewCard()
    expect(await card.findByRole('table')).toBeInTheDocument()
    expect(previews).toHaveLength(1)
    expect(previews[0]).toMatchObject({ bot_mode: 'martingale', martingale_max_depth: 4 })

    await userEvent.selectOptions(screen.getByLabelText('Режим бота'), 'classic')
    expect(screen.queryByRole('region', { name: 'Martingale risk preview' })).not.toBeInTheDocument()
  })

  it('shows every step with 2 decimals, the warnings and the wallet balance', async () => {
    previewServer(settingsRecord({ bot_mode: 'martingale', leverage: 50 }), { wallet: 1234.5 })
    await openSettings()
    const card = await findPreviewCard()
    await card.findByRole('table')

    for (const heading of [
      'Step',
      'Margin (USDT)',
      'Notional',
      'Cumulative margin',
      'Liquidation distance (%)',
    ]) {
      expect(card.getByRole('columnheader', { name: heading })).toBeInTheDocument()
    }
    expect(column(0)).toEqual(['1', '2', '3', '4'])
    expect(column(1)).toEqual(['2.00', '4.00', '8.00', '16.00'])
    expect(column(2)).toEqual(['100.00', '200.00', '400.00', '800.00'])
    expect(column(3)).toEqual(['2.00', '6.00', '14.00', '30.00'])
    // The stop loss (5 %) is past the liquidation distance: red, and said to screen readers.
    expect(column(4)).toEqual(Array(4).fill('1.50 (the stop loss fires after liquidation)'))

    const warnings = card.getByRole('list', { name: 'Warnings' })
    expect(
      within(warnings)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([LIQUIDATION_WARNING(5, '1.50', 50)])
    expect(card.getByText('Checked against wallet balance 1,234.50 USDT')).toBeInTheDocument()
  })

  it('says when there is nothing to warn about, and no wallet line without a balance', async () => {
    previewServer(settingsRecord({ bot_mode: 'martingale' }))
    await openSettings()
    const card = await findPreviewCard()
    expect(await card.findByText('No warnings for these values.')).toBeInTheDocument()
    expect(column(4)).toEqual(['9.50', '9.50', '9.50', '9.50'])
    expect(card.queryByText(/Checked against wallet balance/)).not.toBeInTheDocument()
  })

  it('sends the edited values once they stop changing (debounced), unsaved', async () => {
    const { previews } = previewServer(settingsRecord({ bot_mode: 'martingale' }))
    await openSettings()
    const card = await findPreviewCard()
    await card.findByRole('table')
    expect(previews).toHaveLength(1)

    const leverage = screen.getByLabelText('Кредитное плечо')
    await userEvent.clear(leverage)
    await userEvent.type(leverage, '50')
    await waitFor(() => {
      expect(column(4)).toEqual(Array(4).fill('1.50 (the stop loss fires after liquidation)'))
    })
    // One request for the finished edit: none for the empty field or the "5" on the way.
    expect(previews).toHaveLength(2)
    expect(previews[1]).toMatchObject({ leverage: 50, martingale_step: 2, bot_mode: 'martingale' })
    expect(await card.findByText(LIQUIDATION_WARNING(5, '1.50', 50))).toBeInTheDocument()

    await userEvent.clear(screen.getByLabelText('Множитель шага'))
    await userEvent.type(screen.getByLabelText('Множитель шага'), '1.5')
    await waitFor(() => {
      expect(column(1)).toEqual(['2.00', '3.00', '4.50', '6.75'])
    })
    expect(previews.at(-1)).toMatchObject({ leverage: 50, martingale_step: 1.5 })
    expect(previews.filter(({ leverage: sent }) => sent === 5)).toHaveLength(0)
    // Nothing was saved.
    expect(screen.getByText('Есть несохранённые изменения')).toBeInTheDocument()
  })

  it('keeps the last result on screen while the next one loads', async () => {
    let answer: (reply: Reply) => void = () => undefined
    const { previews } = previewServer(settingsRecord({ bot_mode: 'martingale' }), {
      onPreview: (payload) =>
        payload.leverage === 50 ? new Promise<Reply>((resolve) => (answer = resolve)) : undefined,
    })
    await openSettings()
    const card = await findPreviewCard()
    await card.findByRole('table')

    await userEvent.clear(screen.getByLabelText('Кредитное плечо'))
    await userEvent.type(screen.getByLabelText('Кредитное плечо'), '50')
    await waitFor(() => {
      expect(previews).toHaveLength(2)
    })
    expect(await card.findByText('Updating...')).toBeInTheDocument()
    expect(column(4)).toEqual(['9.50', '9.50', '9.50', '9.50'])
    expect(column(1)).toEqual(['2.00', '4.00', '8.00', '16.00'])

    answer({
      status: 200,
      body: figure(settingsRecord({ bot_mode: 'martingale' }), { leverage: 50 }, null),
    })
    await waitFor(() => {
      expect(column(4)[0]).toBe('1.50 (the stop loss fires after liquidation)')
    })
    expect(card.queryByText('Updating...')).not.toBeInTheDocument()
  })

  it("shows the server's field errors as a note and keeps the last result", async () => {
    const { previews } = previewServer(settingsRecord({ bot_mode: 'martingale' }), {
      // A rule only this (mocked) server applies: the form itself accepts depths up to 20.
      onPreview: (payload) =>
        payload.martingale_max_depth === 12
          ? {
              status: 400,
              body: {
                error: 'Invalid settings.',
                fields: { martingale_max_depth: ['must be 10 or less'] },
              },
            }
          : undefined,
    })
    await openSettings()
    const card = await findPreviewCard()
    await card.findByRole('table')

    await userEvent.clear(screen.getByLabelText('Макс. глубина цепочки'))
    await userEvent.type(screen.getByLabelText('Макс. глубина цепочки'), '12')
    expect(
      await card.findByText('The preview is not updated until these values are fixed:'),
    ).toBeInTheDocument()
    expect(card.getByRole('listitem')).toHaveTextContent('Макс. глубина цепочки: must be 10 or less')
    expect(card.getByText('The table shows the last values that could be checked.')).toBeInTheDocument()
    expect(column(0)).toEqual(['1', '2', '3', '4'])
    expect(previews.at(-1)).toMatchObject({ martingale_max_depth: 12 })
    // The form itself is untouched: no error under the field, the save button works as before.
    expect(screen.getByLabelText('Макс. глубина цепочки')).not.toHaveAccessibleDescription(/must be 10/)

    // Fixed: the note goes and the new steps show.
    await userEvent.clear(screen.getByLabelText('Макс. глубина цепочки'))
    await userEvent.type(screen.getByLabelText('Макс. глубина цепочки'), '5')
    await waitFor(() => {
      expect(column(0)).toEqual(['1', '2', '3', '4', '5'])
    })
    expect(
      card.queryByText('The preview is not updated until these values are fixed:'),
    ).not.toBeInTheDocument()
  })

  it('asks nothing while a value breaks the form rules, and says which', async () => {
    const { previews } = previewServer(settingsRecord({ bot_mode: 'martingale' }))
    await openSettings()
    const card = await findPreviewCard()
    await card.findByRole('table')

    await userEvent.clear(screen.getByLabelText('Кредитное плечо'))
    await userEvent.type(screen.getByLabelText('Кредитное плечо'), '500')
    expect(
      await card.findByText('The preview is not updated until these values are fixed:'),
    ).toBeInTheDocument()
    expect(card.getByRole('listitem')).toHaveTextContent('Кредитное плечо: Не больше 100')
    expect(previews).toHaveLength(1)
    expect(column(4)).toEqual(['9.50', '9.50', '9.50', '9.50'])
  })
})
