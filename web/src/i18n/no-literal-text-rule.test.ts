import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

/**
 * The lint rule that keeps words out of the components (eslint.config.js, signal-desk/no-literal-text),
 * run through the project's own ESLint config. The code is linted in place of an existing component
 * (and test): the typed rules only parse files their tsconfig knows.
 */
const eslint = new ESLint()
const componentPath = 'src/features/dashboard/components/summary-cards.tsx'
const testPath = 'src/components/venue-badge.test.tsx'

async function literalTextProblems(code: string, filePath = componentPath) {
  const [result] = await eslint.lintText(code, { filePath })
  const messages = result?.messages ?? []
  const fatal = messages.find((message) => message.fatal)
  if (fatal) throw new Error(fatal.message)
  return messages.filter((message) => message.ruleId === 'signal-desk/no-literal-text')
}

const component = (body: string) => `import { dashboardStrings as s } from '@/features/dashboard/strings'

export function Probe({ open }: { open: boolean }) {
  return ${body}
}
`

// The first lint builds the TypeScript program of the whole app: seconds on a loaded machine.
describe('signal-desk/no-literal-text', { timeout: 60_000 }, () => {
  it('reports words written between tags', async () => {
    const problems = await literalTextProblems(component('<th>Symbol</th>'))
    expect(problems.map((p) => p.message)).toEqual([
      'Words in JSX ("Symbol"): read them from the catalogue (src/i18n/en.ts and ru.ts).',
    ])
  })

  it('reports words in the attributes a user reads or hears, and in {} children', async () => {
    const problems = await literalTextProblems(
      component(`(
    <div aria-label="Open positions" title={'Close'}>
      <input placeholder={open ? 'e.g. BTCUSDT' : s.openPositions.close} />
      {'Loading'}
    </div>
  )`),
    )
    expect(problems.map((p) => p.message)).toEqual([
      'Words in aria-label ("Open positions"): read them from the catalogue (src/i18n/en.ts and ru.ts).',
      'Words in title ("Close"): read them from the catalogue (src/i18n/en.ts and ru.ts).',
      'Words in placeholder ("e.g. BTCUSDT"): read them from the catalogue (src/i18n/en.ts and ru.ts).',
      'Words in JSX ("Loading"): read them from the catalogue (src/i18n/en.ts and ru.ts).',
    ])
  })

  it('passes catalogue lookups, symbols without letters and attributes nobody reads', async () => {
    const problems = await literalTextProblems(
      component(`(
    <div aria-label={s.openPositions.title} title={s.openPositions.close} className="flex gap-2" data-column="pnl">
      {s.openPositions.empty} — {' '} ({open ? '…' : '—'})
    </div>
  )`),
    )
    expect(problems).toEqual([])
  })

  it('leaves the tests alone', async () => {
    const problems = await literalTextProblems(component('<th>Symbol</th>'), testPath)
    expect(problems).toEqual([])
  })
})
