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
