import type { PaymentsStatus } from '../../shared/contract/payments'

/** The renderer's side effects beyond drawing and calling the back end: questions to the operator
 * and files saved to disk. One place: stores never do these (they stay testable under any DOM);
 * views and components call them, and tests provide their own. */
export interface Effects {
  confirm(question: string): boolean
  saveFile(file: { name: string; text: string; type: string }): void
}

const browserEffects: Effects = {
  confirm: (question) => window.confirm(question),
  saveFile({ name, text, type }) {
    const link = document.createElement('a')
    link.href = URL.createObjectURL(new Blob([text], { type }))
    link.download = name
    link.click()
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
  },
}

let current: Effects = browserEffects

export const effects = (): Effects => current

export function provideEffects(next: Effects): void {
  current = next
}

/** A write to the payments service: with a live key the operator confirms it (the back end refuses
 * it otherwise). `alsoAsk` is asked when not live. true/false is the `confirmLive` to send; null:
 * the operator said no. */
export function confirmPaymentsWrite(
  status: PaymentsStatus | null,
  what: string,
  alsoAsk?: string,
): boolean | null {
  if (status?.live) {
    const question = `LIVE KEY ${status.activeKey?.masked ?? ''}\n\n${what}\n\nThis acts on the live account. Continue?`
    return current.confirm(question) ? true : null
  }
  if (alsoAsk !== undefined && !current.confirm(alsoAsk)) return null
  return false
}
