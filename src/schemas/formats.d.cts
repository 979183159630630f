declare const formats: Record<string, RegExp | ((value: string) => boolean)>;
export = formats;
