// drizzle-kit config: `npm run db:generate` writes src/storage/migrations from schema.ts.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/storage/schema.ts',
  out: './src/storage/migrations',
  casing: 'snake_case',
})
