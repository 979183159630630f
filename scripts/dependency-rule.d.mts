export declare const FOLDERS: string[];
export declare const ALLOWED: Record<string, string[]>;
export declare function dependencyZones(): {
  target: string;
  from: string;
  except?: string[];
  message: string;
}[];
