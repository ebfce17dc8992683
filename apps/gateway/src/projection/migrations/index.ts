import { CreateRunProjection1763800000000 } from './1763800000000-create-run-projection.js';

/** The gateway schema's migrations, oldest first. */
export const gatewayMigrations = [CreateRunProjection1763800000000];
