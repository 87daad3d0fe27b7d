import { useEffect, useRef, useState } from "react";
import { apiRequest } from "~/lib/api.client";
import type { RoomProfile } from "~/lib/rooms";

/**
 * Public profiles for the uuids on screen, batched 150 a call, each asked once. `enabled`:
 * whether this visitor may ask (a socket-less page asks nothing).
 */
export function useProfiles(uuids: string[], enabled: boolean) {
  const [profiles, setProfiles] = useState<Record<string, RoomProfile>>({});
  const asked = useRef(new Set<string>());
  const key = uuids.join(",");
  useEffect(() => {
    if (!enabled) return;
    const missing = uuids.filter((u) => !asked.current.has(u));
    if (!missing.length) return;
    missing.forEach((u) => asked.current.add(u));
    for (let i = 0; i < missing.length; i += 150) {
      const batch = missing.slice(i, i + 150);
      apiRequest<RoomProfile[]>(`/api/user-service/users/profiles?users=${batch.join(",")}`)
        .then((list) =>
          setProfiles((p) => ({ ...p, ...Object.fromEntries(list.map((x) => [x.uuid, x])) })),
        )
        .catch(() => batch.forEach((u) => asked.current.delete(u)));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, enabled]);
  return profiles;
}
