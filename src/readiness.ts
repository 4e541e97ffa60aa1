/** A named dependency /readyz reports on; `check` throws when it is not ready. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}
