"""The engine of each server: the settings registry, flag tables per release, argument lists, defaults, images and the command a container runs."""
