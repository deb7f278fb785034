// LanceDB table names allow [A-Za-z0-9_.-]; tenants also allow ':' and '@'. Every character
// outside [A-Za-z0-9-] (including '_') becomes `_xx` (hex), so names are reversible and a
// tenant can never spell the `__` separator.

/** Encodes a tenant id for use inside a table name. */
export function encodeTenant(tenant: string): string {
  return tenant.replace(/[^A-Za-z0-9-]/g, (ch) => `_${ch.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Reverses `encodeTenant`. */
export function decodeTenant(encoded: string): string {
  return encoded.replace(/_([0-9a-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
