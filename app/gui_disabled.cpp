// Linked when satlab is configured with SATLAB_WITH_GUI=OFF.
