import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter'

/** Lines kept of each error: its message and the first frames of its stack. */
const LINES_PER_ERROR = 14

/**
 * Prints, after every other reporter, each failed test's name and the head of its errors, so
 * the last lines of a CI log (often all a reader of a remote run gets) say why a test failed,
 * not only which file its trace is in.
 */
export default class FailureSummary implements Reporter {
  private readonly failures: { test: TestCase; result: TestResult }[] = []

  printsToStdio() {
    return true
  }

  onTestEnd(test: TestCase, result: TestResult) {
    if (result.status !== 'passed' && result.status !== 'skipped' && result.status !== test.expectedStatus) {
      this.failures.push({ test, result })
    }
  }

  onEnd(result: FullResult) {
    if (this.failures.length === 0) return
    const out = [`\nWhy ${String(this.failures.length)} test(s) failed (run status: ${result.status}):`]
    for (const { test, result: run } of this.failures) {
      out.push(
        `\n✘ ${test.titlePath().filter(Boolean).join(' › ')} [${run.status}, ${String(run.duration)} ms]`,
      )
      const steps = run.steps.filter((step) => step.error).map((step) => step.title)
      if (steps.length > 0) out.push(`  in step: ${steps.join(' › ')}`)
      for (const error of run.errors) {
        const text = stripColours(error.stack ?? error.message ?? String(error.value))
        out.push(
          ...text
            .split('\n')
            .slice(0, LINES_PER_ERROR)
            .map((line) => `  ${line}`),
        )
      }
    }
    console.log(out.join('\n'))
  }
}

// eslint-disable-next-line no-control-regex
const stripColours = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '')
