// @vitest-environment node
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, expect, it } from 'vitest'

/*
 * The fences of eslint.config.js (issue 33 point 9), run through ESLint's Node API on snippets:
 * a feature may not import another feature's components, and src/components and src/lib may not
 * import features. Type-aware rules are off here: the snippets' files do not exist.
 */

const eslint = new ESLint({ overrideConfig: tseslint.configs.disableTypeChecked })

async function fenceErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message)
}

const TRADES_FILE = 'src/features/trades/components/x.tsx'

describe('lint fences', () => {
  it("stops a feature importing another feature's component, by alias or relative path", async () => {
    const byAlias = await fenceErrors(
      "import { RunLabel } from '@/features/backtest/components/run-label'\nexport const x = RunLabel\n",
      TRADES_FILE,
    )
    expect(byAlias).toHaveLength(1)
    expect(byAlias[0]).toContain('move the piece both use to src/components')

    const byPath = await fenceErrors(
      "import { RunLabel } from '../../backtest/components/run-label'\nexport const x = RunLabel\n",
      TRADES_FILE,
    )
    expect(byPath).toHaveLength(1)
  })

  it("lets a feature import its own components, another feature's api hooks and src/components", async () => {
    const errors = await fenceErrors(
      [
        "import { TradesList } from '@/features/trades/components/trades-list'",
        "import { ChartToggle } from '../components/chart-toggle'",
        "import { useBotStatus } from '@/features/dashboard/api/get-bot-status'",
        "import { QueryState } from '@/components/query-state'",
        'export const x = [TradesList, ChartToggle, useBotStatus, QueryState]',
        '',
      ].join('\n'),
      TRADES_FILE,
    )
    expect(errors).toEqual([])
  })

  it('stops src/components and src/lib importing any feature', async () => {
    const code =
      "import { useBotStatus } from '@/features/dashboard/api/get-bot-status'\nexport const x = useBotStatus\n"
    expect(await fenceErrors(code, 'src/components/x.tsx')).toHaveLength(1)
    expect(await fenceErrors(code, 'src/lib/x.ts')).toHaveLength(1)
    expect(await fenceErrors(code, 'src/app/x.tsx')).toEqual([])
  })
})
