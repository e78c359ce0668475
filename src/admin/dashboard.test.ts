// The dashboard lists the newest similarity reports, each linked to its page.
import { afterEach, expect, test } from 'vitest'
import { findClientBySecret } from '../clients/clients.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { addClient, createTestDeps, type TestDeps } from '../testing/evaluation.ts'
import { requestReport, webLinkOf } from '../similarity/reports.ts'
import { dashboard } from './dashboard.ts'
import { dashboardPage } from './page.ts'

let deps: TestDeps | undefined
afterEach(async () => deps?.stop())

test('recent similarity reports are linked from the dashboard', () => {
  deps = createTestDeps({ start: false })
  expect(dashboardPage(dashboard(deps), 'root', 'csrf')).toContain('<p class="muted" id="similarity">None yet')
  const client = findClientBySecret(deps.db, addClient(deps, { name: 'teacher <1>' }))!
  const ids = ['print(1)', 'print(2)'].map((source) => acceptSubmission(deps!, client, { api: 'v4', lang: 'PYTHON3', source }).publicId)
  const row = requestReport(deps, client, { he_ids: ids })
  const html = dashboardPage(dashboard(deps), 'root', 'csrf')
  expect(html).toContain(`<a href="${webLinkOf(deps, row)}">${row.publicId.slice(0, 8)}</a>`)
  expect(html).toContain('teacher &lt;1&gt;')
  expect(html).toMatch(/<td>python<\/td><td>he_ids<\/td><td>2<\/td><td>queued<\/td>/)
})
