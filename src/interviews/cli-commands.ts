// CLI of the interview accounts: companies (credits, feature switch) and their API users.
import { type CliCommands, type CliContext, JSON_FLAG } from '../cli-types.ts'
import { addCredits, createCompany, createUser, listCompanies, listUsers, revokeUser, setInterviewsEnabled, webhookSecret } from './accounts.ts'


/** The accounts' services against the installation's database (the CLI's one context). */
const withAccounts = <T>(ctx: CliContext, fn: (deps: Parameters<typeof createCompany>[0]) => T): T => ctx.withDb((db, config) => fn({ config, db, now: () => new Date() }))

function integer(value: unknown, flag: string): number {
  if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value.trim())) throw new Error(`${flag} must be a whole number`)
  return Number(value)
}

function required(value: unknown, flag: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${flag} is required`)
  return value
}

const companyJson = (c: ReturnType<typeof listCompanies>[number]) => ({
  id: c.id,
  name: c.name,
  credits: c.credits,
  interviews_enabled: c.interviewsEnabled,
  created_at: c.createdAt,
})

const json = JSON_FLAG

export const interviewCommands: CliCommands = {
  'companies create': {
    summary: 'companies create --name N --credits C [--no-interviews]: a company of the interview API',
    options: { name: { type: 'string' }, credits: { type: 'string' }, 'no-interviews': { type: 'boolean' }, ...json },
    async run({ values }, ctx) {
      const name = required(values.name, '--name')
      const credits = integer(values.credits ?? '0', '--credits')
      return withAccounts(ctx, (deps) => companyJson(createCompany(deps, { name, credits, interviewsEnabled: !values['no-interviews'] })))
    },
  },
  'companies credits': {
    summary: 'companies credits --company ID --add N: add (or with a negative N remove) interview credits',
    options: { company: { type: 'string' }, add: { type: 'string' }, ...json },
    async run({ values }, ctx) {
      const company = integer(values.company, '--company')
      const add = integer(values.add, '--add')
      return withAccounts(ctx, (deps) => companyJson(addCredits(deps, company, add)))
    },
  },
  'companies feature': {
    summary: 'companies feature --company ID --interviews on|off: switch the interview feature',
    options: { company: { type: 'string' }, interviews: { type: 'string' }, ...json },
    async run({ values }, ctx) {
      const company = integer(values.company, '--company')
      if (values.interviews !== 'on' && values.interviews !== 'off') throw new Error('--interviews must be on or off')
      return withAccounts(ctx, (deps) => companyJson(setInterviewsEnabled(deps, company, values.interviews === 'on')))
    },
  },
  'companies secret': {
    summary: 'companies secret --company ID [--rotate]: the key of the HE-Signature on its report callbacks',
    options: { company: { type: 'string' }, rotate: { type: 'boolean' }, ...json },
    async run({ values }, ctx) {
      const company = integer(values.company, '--company')
      return withAccounts(ctx, (deps) => webhookSecret(deps, company, values.rotate === true))
    },
  },
  'companies list': {
    summary: 'companies list: every company with its credits',
    options: json,
    async run(_, ctx) {
      return withAccounts(ctx, (deps) => listCompanies(deps).map(companyJson))
    },
  },
  'users create': {
    summary: 'users create --company ID --email E [--super-admin]: prints the client_id and client_secret (shown once)',
    options: { company: { type: 'string' }, email: { type: 'string' }, 'super-admin': { type: 'boolean' }, ...json },
    async run({ values }, ctx) {
      const companyId = integer(values.company, '--company')
      const email = required(values.email, '--email')
      return withAccounts(ctx, (deps) => {
        const { client_id, client_secret } = createUser(deps, { companyId, email, superAdmin: values['super-admin'] === true })
        return { client_id, client_secret }
      })
    },
  },
  'users list': {
    summary: 'users list [--company ID]: users with role, state and a hint of their client_id',
    options: { company: { type: 'string' }, ...json },
    async run({ values }, ctx) {
      const company = values.company === undefined ? undefined : integer(values.company, '--company')
      return withAccounts(ctx, (deps) => listUsers(deps, company))
    },
  },
  'users revoke': {
    summary: 'users revoke --user ID | --client-id CLIENT_ID: the credentials then answer ACCESSERROR',
    options: { user: { type: 'string' }, 'client-id': { type: 'string' }, ...json },
    async run({ values }, ctx) {
      const userId = values.user === undefined ? undefined : integer(values.user, '--user')
      const clientId = typeof values['client-id'] === 'string' ? values['client-id'].trim() : undefined
      return withAccounts(ctx, (deps) => revokeUser(deps, { userId, clientId }))
    },
  },
}
