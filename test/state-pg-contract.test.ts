import { runStateStoreContract } from './helpers/state-contract.js';
import { createPgStateStore, type PgStateStore } from '../src/state/pg/index.js';
import { describePg, dropWorkspace, PG_URL, pgStore } from './state-pg-support.js';

describePg('pg backend (real server)', () => {
  runStateStoreContract(
    'pg',
    async () => {
      const store = pgStore({ historyLimit: 3 });
      return { store, cleanup: () => dropWorkspace(store.workspace) };
    },
    {
      // A second handle is a second pool and lock connection, as another runner would have.
      makeSecondHandle: async (store) =>
        createPgStateStore({ connectionString: PG_URL, workspace: (store as PgStateStore).workspace }),
    },
  );
});
