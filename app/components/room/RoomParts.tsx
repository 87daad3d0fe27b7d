// The room's small pieces now live one a file (UserAvatar, VoteButton, VibeMeter, Seat);
// this module re-exports them for the importers not yet moved to those files.
export { UserAvatar } from "./UserAvatar";
export { VoteButton } from "./VoteButton";
export { VibeMeter } from "./VibeMeter";
export { Seat, SeatIcon } from "./Seat";
export { Heart as HeartIcon } from "lucide-react";
