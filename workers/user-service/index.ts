import { serviceApp } from "../lib/service";
import { authRoutes } from "./auth";
import { signUpRoutes } from "./sign-up";

/** The user-service: accounts, sessions, e-mails, passwords, profiles, images, vouchers. */
export const userService = serviceApp("user-service");
userService.route("/", authRoutes);
userService.route("/", signUpRoutes);
