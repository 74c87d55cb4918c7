import { defineConfig } from 'drizzle-kit';

/** Migrations of the PostgreSQL schema (`DATABASE_URL`); SQLite's are `drizzle.config.ts`'s. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema-pg/index.ts',
  out: './drizzle/postgres',
});
