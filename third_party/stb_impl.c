// The single translation unit that holds the stb_image / stb_image_write implementations
// (headers from Debian's libstb-dev).
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#include <stb_image.h>
#include <stb_image_write.h>
