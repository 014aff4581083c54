import { expect, test } from './fixtures'

test.describe('martingale risk preview', () => {
  test('shows the steps of the form values in martingale mode and warns about a stop past liquidation', async ({
    page,
    login,
    account,
  }) => {
    await login(page, account)
    await page.goto('/settings')
    await expect(page.getByRole('heading', { level: 1, name: 'Настройки торговли' })).toBeVisible()
    const card = page.getByRole('region', { name: 'Martingale risk preview' })
    await expect(card).toHaveCount(0)

    await page.getByLabel('Режим бота').selectOption('martingale')
    // The defaults: 2 USDT, x2, 4 steps, 10x.
    const rows = card.getByRole('table').getByRole('row')
    await expect(rows).toHaveCount(5)
    for (const [index, margin] of ['2.00', '4.00', '8.00', '16.00'].entries()) {
      await expect(
        rows
          .nth(index + 1)
          .getByRole('cell')
          .nth(1),
      ).toHaveText(margin)
    }
    await expect(card.getByText('No warnings for these values.')).toBeVisible()

    // At 50x the price is 1.5 % from liquidation, nearer than the 5 % stop loss.
    await page.getByLabel('Кредитное плечо').fill('50')
    await expect(card.getByRole('list', { name: 'Warnings' })).toContainText('liquidated before the stop')
    await expect(rows.nth(1).getByRole('cell').nth(4)).toContainText('1.50')

    // Nothing was saved: the form still has unsaved changes, and classic mode hides the card.
    await expect(page.getByText('Есть несохранённые изменения')).toBeVisible()
    await page.getByLabel('Режим бота').selectOption('classic')
    await expect(card).toHaveCount(0)
  })
})
