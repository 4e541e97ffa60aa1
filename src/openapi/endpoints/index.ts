import type { Endpoint } from '../registry';
import { AGENT_ENDPOINTS } from './agent';
import { OPS_ENDPOINTS } from './ops';
import { PORTAL_ENDPOINTS } from './portal';
import { V1_ENDPOINTS } from './v1';
import { WIDGET_ENDPOINTS } from './widget';

/** Every route the app serves, declared once. A route missing here fails test/integration/openapi.test.ts. */
export const ENDPOINTS: readonly Endpoint[] = [...V1_ENDPOINTS, ...PORTAL_ENDPOINTS, ...AGENT_ENDPOINTS, ...WIDGET_ENDPOINTS, ...OPS_ENDPOINTS];
