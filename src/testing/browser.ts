// Debian's headless Chromium for the page tests, driven by playwright-core, started with the flags this
// closed network needs (no background networking, no component updates: their connections are refused).
import { chromium, type Browser } from 'playwright-core'

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

// what page.evaluate() callbacks touch in the browser (the project's tsconfig has no DOM library)
type DomLine = { cloneNode(deep: boolean): DomLine; querySelectorAll(s: string): { forEach(fn: (e: { remove(): void }) => void): void }; textContent: string | null }

/** The room editor's text as shown: its lines (.cm-line), without the others' cursors and name labels drawn in them. */
export const editorText = (page: import('playwright-core').Page): Promise<string> =>
  page.locator('#code .cm-line').evaluateAll((lines) =>
    (lines as unknown as DomLine[])
      .map((l) => {
        const copy = l.cloneNode(true)
        copy.querySelectorAll('.cm-ySelectionCaret').forEach((c) => c.remove())
        return copy.textContent ?? ''
      })
      .join('\n')
  )
