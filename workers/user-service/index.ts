import { serviceApp } from "../lib/service";
import { adminUserRoutes } from "./admin-users";
import { authRoutes } from "./auth";
import { capabilityRoutes } from "./capabilities";
import { emailRoutes } from "./emails";
import { imageRoutes } from "./images";
import { passwordRoutes } from "./passwords";
import { profileRoutes } from "./profiles";
import { signUpRoutes } from "./sign-up";
import { voucherRoutes } from "./vouchers";
import { webSessionRoutes } from "./web-sessions";

/** The user-service: accounts, sessions, e-mails, passwords, profiles, images, vouchers. */
export const userService = serviceApp("user-service");
for (const routes of [
  authRoutes,
  webSessionRoutes,
  signUpRoutes,
  emailRoutes,
  passwordRoutes,
  profileRoutes,
  imageRoutes,
  capabilityRoutes,
  voucherRoutes,
  adminUserRoutes,
]) {
  userService.route("/", routes);
}
