import { Armchair } from "lucide-react";
import type { ReactNode } from "react";

/** A DJ seat on the stage, lit in the room's accent while its DJ plays. */
export function Seat({
  children,
  lit,
  accent,
  testId,
}: {
  children: ReactNode;
  lit?: boolean;
  accent: string;
  testId?: string;
}) {
  return (
    <li
      data-testid={testId}
      data-lit={lit ? "true" : undefined}
      className="relative flex h-36 has-[[role=menu]]:z-30 min-w-0 flex-col items-center justify-center gap-2 rounded-2xl border border-white/15 bg-black/35 p-2 text-center backdrop-blur-sm"
      style={lit ? { borderColor: accent, boxShadow: `0 0 22px -4px ${accent}` } : undefined}
    >
      {children}
    </li>
  );
}

export const SeatIcon = Armchair;
