import type { RoomProfile } from "~/lib/rooms";
import { Avatar } from "~/components/Avatar";
import { AvatarArt } from "~/components/avatars/AvatarArt";

/** A room user's face: the avatar they wear, else their picture or initial. */
export function UserAvatar({
  profile,
  fallbackName,
  size = 40,
  alt = "",
}: {
  profile?: RoomProfile | null;
  fallbackName: string;
  size?: number;
  alt?: string;
}) {
  // The avatar a user wears is how they show up in rooms; without one, their picture or initial.
  if (profile?.avatarId) return <AvatarArt slug={profile.avatarId} size={size} alt={alt} />;
  return (
    <Avatar
      name={profile?.nickname ?? fallbackName}
      src={profile?.profilePicture ?? null}
      color={profile?.color ?? null}
      size={size}
      alt={alt}
    />
  );
}
