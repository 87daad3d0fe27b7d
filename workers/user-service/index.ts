import { serviceApp } from "../lib/service";
import { emailRoutes } from "./emails";
import { passwordRoutes } from "./passwords";
import { voucherRoutes } from "./vouchers";
import { adminUserRoutes } from "./admin-users";
import { imageRoutes } from "./images";
import { profileRoutes } from "./profiles";
import { authRoutes } from "./auth";
import { signUpRoutes } from "./sign-up";

/** The user-service: accounts, sessions, e-mails, passwords, profiles, images, vouchers. */
export const userService = serviceApp("user-service");
userService.route("/", authRoutes);
userService.route("/", signUpRoutes);
import { capabilityRoutes } from "./capabilities";
userService.route("/", capabilityRoutes);
userService.route("/", profileRoutes);
userService.route("/", imageRoutes);
userService.route("/", adminUserRoutes);
userService.route("/", emailRoutes);
userService.route("/", passwordRoutes);
userService.route("/", voucherRoutes);
