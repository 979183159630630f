export function chromiumPath(): string | undefined;
export function headlessFlags(profileDir: string): string[];
