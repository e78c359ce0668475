// Prints the README's configuration table from the config schema (the single source of truth).
// Usage: npx tsx scripts/config-table.ts   (src/config.test.ts checks the README still matches)
import { configTable } from '../src/config.ts'

console.log(configTable())
