import type { RoutingSettings } from '../domain/routing/settings';

/** The routing settings as the portal and the CLI show them. */
export const presentRoutingSettings = (settings: RoutingSettings) => ({
  mode: settings.mode,
  capacity: settings.capacity,
  accept_seconds: settings.accept_seconds,
  business_hours: settings.business_hours,
  offline_message: settings.offline_message,
  ai_after_hours: settings.ai_after_hours,
});
