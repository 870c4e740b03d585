#include "app/io/image_io.hpp"
