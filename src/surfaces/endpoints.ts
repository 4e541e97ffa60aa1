import { OPS_ENDPOINTS } from '../openapi/opsEndpoints';
import type { Endpoint } from '../openapi/registry';
import { AGENT_ENDPOINTS } from './agent';
import { PORTAL_ENDPOINTS } from './portal';
import { V1_ENDPOINTS } from './v1';
import { WIDGET_ENDPOINTS } from './widget';

/** Every route the app serves, as /openapi.json describes it. */
export const ENDPOINTS: readonly Endpoint[] = [...V1_ENDPOINTS, ...PORTAL_ENDPOINTS, ...AGENT_ENDPOINTS, ...WIDGET_ENDPOINTS, ...OPS_ENDPOINTS];
